"""The "kernel process" Jupyter sees when the fork server runs the kernel (stdlib only, starts in ms).

python kernel_relay.py SOCKET REQUEST_JSON: sends the request, with this process's
environment (the one Jupyter prepared for the kernel), to the fork server, then waits.
It exits with the kernel's exit code; when Jupyter kills it, the server kills the job.
"""

import json
import os
import signal
import socket
import sys


def main() -> int:
    """Relay one kernel's life: request out, exit code back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt must not end the job
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    request = json.loads(sys.argv[2])
    inherited = {k: v for k, v in os.environ.items() if k != "JPY_PARENT_PID"}
    request["env"] = {**inherited, **request.get("env", {})}
    sock.sendall((json.dumps(request) + "\n").encode())
    reply = sock.makefile("r").readline().split()
    return int(reply[1]) & 0xFF if len(reply) == 2 and reply[0] == "exit" else 1


if __name__ == "__main__":
    sys.exit(main())
