"""Run a command in a new user namespace that maps only uids and gids 0-65535 (as a pod with `hostUsers: false`).

    python tests/userns.py COMMAND...

As root on the host: the child unshares its user namespace, the parent (root outside)
writes its uid and gid maps (`0 0 65536`: the identity on the low range, nothing above),
then the child becomes root inside and runs COMMAND. newuidmap is not needed.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
MAP = "0 0 65536\n"


def main(argv: list[str]) -> int:
    """Run argv in the namespace; its exit status."""
    go_read, go_write = os.pipe()
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_write)
        os.close(ready_read)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWUSER) != 0:
            os.write(2, f"unshare(CLONE_NEWUSER): errno {ctypes.get_errno()}\n".encode())
            os._exit(125)
        os.write(ready_write, b"u")
        if os.read(go_read, 1) != b"g":
            os._exit(125)
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)
        os.execvp(argv[0], argv)
    os.close(go_read)
    os.close(ready_write)
    if os.read(ready_read, 1) == b"u":
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as fh:
                fh.write(MAP)
        os.write(go_write, b"g")
    os.close(go_write)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
