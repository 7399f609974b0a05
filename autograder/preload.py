"""The kernel fork server (autograder/forkserver.py) from the grader's side: start it sandboxed, stop it.

One server per grading run. It sees the read-only system and Python, the kernels'
work root and its socket folder, and (where writable) the pids and memory cgroup
trees, so that each job's child can join its own cgroups; no repository, course
or results. Set AUTOGRADER_PRELOAD=0 to start every kernel with
bwrap instead (slower: each job imports torch again).
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from autograder import sandbox

SERVER = Path(__file__).with_name("forkserver.py")
READY_SECONDS = 120


class PreloadFailed(RuntimeError):
    """The fork server did not start."""


def wanted() -> bool:
    """The fork server is on unless AUTOGRADER_PRELOAD=0."""
    return os.environ.get("AUTOGRADER_PRELOAD", "1") != "0"


def server_command(work_root: Path, ipc_root: Path, ctl: Path) -> list[str]:
    """bwrap (as root, capabilities kept: the server forks and demotes the kernels) around the server."""
    made: set[str] = set()
    args = ["bwrap", *sandbox.ISOLATION, "--perms", "1777", "--tmpfs", "/tmp", *sandbox.read_only_system(made)]
    for d in (work_root, ipc_root):
        args += sandbox.mkdirs(str(d), made) + ["--bind", str(d), str(d)]
    for kind in ("pids", "memory", "cpu"):
        tree = sandbox.cgroup_tree(kind)
        if tree is not None:
            args += sandbox.mkdirs(str(tree), made) + ["--bind", str(tree), str(tree)]
    args += ["--dir", "/stage", "--chdir", str(ipc_root), "--"]
    # the work root on the command line names every forked kernel after the run it serves
    return args + [sys.executable, str(ctl / "forkserver.py"), str(ctl / "sock"), str(work_root)]


def _wait_ready(proc: subprocess.Popen, log: Path) -> None:
    ready, _, _ = select.select([proc.stdout], [], [], READY_SECONDS)
    line = proc.stdout.readline() if ready else b""
    if line.strip() != b"ready":
        proc.kill()
        raise PreloadFailed(f"the kernel fork server did not start: {log.read_text()[-2000:]}")


@contextmanager
def running(work_root: Path, env: dict[str, str]) -> Iterator[str]:
    """Start the fork server for one grading run; yields its socket path ("" if it did not start).

    `env` is the kernels' environment: the hash seed and thread count are fixed at the server's start.
    """
    ipc_root = Path(tempfile.mkdtemp(prefix="agf-", dir="/tmp"))
    os.chmod(ipc_root, 0o711)  # kernels reach their own socket folder; the control folder is root's
    ctl = ipc_root / "ctl"
    ctl.mkdir(mode=0o700)
    shutil.copyfile(SERVER, ctl / "forkserver.py")
    shutil.copyfile(sandbox.SECCOMP, ctl / "seccomp.py")
    pidfile = work_root / "_forkserver" / "server.kernel-pid"
    pidfile.parent.mkdir(parents=True, exist_ok=True)
    with open(ctl / "server.log", "w") as log:
        cmd = server_command(work_root, ipc_root, ctl)
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env)
    pidfile.write_text(f"{proc.pid} {ipc_root} -")  # a killed run's next start kills it (sweep_orphans)
    try:
        try:
            _wait_ready(proc, ctl / "server.log")
            server = str(ctl / "sock")
        except PreloadFailed as exc:  # grading goes on, the slower way
            print(f"warning: {exc}\nstarting each kernel with bubblewrap instead", file=sys.stderr)
            server = ""
        yield server
    finally:
        proc.stdin.close()  # the server's signal to stop
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        pidfile.unlink(missing_ok=True)
        sandbox.remove_tree(ipc_root)
