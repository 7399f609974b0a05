"""The kernel fork server (autograder/shipped/forkserver.py) from the grader's side: start it sandboxed, stop it.

One server per grading run. It sees the read-only system and Python, the kernels'
work root and its socket folder, and (where writable) the pids and memory cgroup
trees, so that each job's child can join its own cgroups; no repository, course
or results. Set AUTOGRADER_PRELOAD=0 to start every kernel with
bwrap instead (slower: each job imports torch again).
"""

from __future__ import annotations

import functools
import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from autograder import paths
from autograder.kernel import sandbox

SERVER = paths.SHIPPED / "forkserver.py"
READY_SECONDS = 120


class PreloadFailed(RuntimeError):
    """The fork server did not start."""


def wanted() -> bool:
    """The fork server is on unless AUTOGRADER_PRELOAD=0."""
    return os.environ.get("AUTOGRADER_PRELOAD", "1") != "0"


def server_command(work_root: Path, ipc_root: Path, ctl: Path, optimizers: bool = False) -> list[str]:
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
    warm = ["optimizers"] if optimizers else []  # forkserver.OPTIMIZERS: the run's notebooks train
    return args + [sys.executable, str(ctl / "forkserver.py"), str(ctl / "sock"), str(work_root), *warm]


def _wait_ready(proc: subprocess.Popen, log: Path) -> None:
    assert proc.stdout is not None  # opened with stdout=PIPE
    ready, _, _ = select.select([proc.stdout], [], [], READY_SECONDS)
    line = proc.stdout.readline() if ready else b""
    if line.strip() != b"ready":
        proc.kill()
        raise PreloadFailed(f"the kernel fork server did not start: {log.read_text()[-2000:]}")


@contextmanager
def starting(work_root: Path, env: dict[str, str], optimizers: bool = False) -> Iterator[Callable[[], str]]:
    """Start the fork server for one grading run; yields a function that waits until it is ready.

    The function returns its socket path ("" if it did not start). Started first and waited
    for last, the server imports torch while the grader sets up. `env` is the kernels'
    environment: the hash seed and thread count are fixed at the server's start. `optimizers`:
    the server also pays an optimizer's first use (torch._dynamo's import) for the kernels.
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
        cmd = server_command(work_root, ipc_root, ctl, optimizers)
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env)
    pidfile.write_text(f"{proc.pid} {ipc_root} -")  # a killed run's next start kills it (sweep_orphans)
    ready = functools.cache(lambda: _socket_when_ready(proc, ctl))
    try:
        yield ready
    finally:
        if ready.cache_info().currsize == 0:  # no job needed it: do not wait for it to finish starting
            proc.kill()
        _stop(proc)
        pidfile.unlink(missing_ok=True)
        sandbox.remove_tree(ipc_root)


@contextmanager
def running(work_root: Path, env: dict[str, str]) -> Iterator[str]:
    """Start the fork server and wait for it; yields its socket path ("" if it did not start)."""
    with starting(work_root, env) as ready:
        yield ready()


def _socket_when_ready(proc: subprocess.Popen, ctl: Path) -> str:
    """The server's socket once it says it is ready; "" (and a warning) if it did not start."""
    try:
        _wait_ready(proc, ctl / "server.log")
        return str(ctl / "sock")
    except PreloadFailed as exc:  # grading goes on, the slower way
        print(f"warning: {exc}\nstarting each kernel with bubblewrap instead", file=sys.stderr)
        return ""


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server: end of its stdin is its signal; killed if it does not go."""
    assert proc.stdin is not None  # opened with stdin=PIPE
    proc.stdin.close()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
