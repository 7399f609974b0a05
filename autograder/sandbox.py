"""The sandbox a learner's kernel runs in: bubblewrap, an unprivileged uid, no network, limits.

The kernel sees a read-only system (/usr, /lib, /etc, the Python installation) and two
writable folders: its own working folder (the notebook and the helper module) and the
exchange folder where the grader puts its calls and reads the answers (plain arrays
and JSON). It cannot see the repository, the solutions, the course folder with the
gradebook, or any other submission: they are not mounted. It runs as a uid of its own
(not root, no capabilities) in new pid/net/ipc/uts namespaces, with a process cap
(RLIMIT_NPROC, and a pids cgroup where one is writable), a memory cap (a memory cgroup
where writable, else RLIMIT_AS), and the kernel talks to the grader over unix sockets.
By default the kernel is not started by bwrap but forked, inside one such sandbox, from
a server with torch already imported (autograder.preload, autograder.forkserver); the
child then builds the same isolation itself before it becomes the kernel.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from autograder.limits import Limits

SANDBOX_UID = 60000
CGROUP_ROOT = Path("/sys/fs/cgroup")
SECCOMP = Path(__file__).with_name("seccomp.py")
RELAY = Path(__file__).with_name("kernel_relay.py")
_SYSTEM_DIRS = ["/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc", "/sbin"]


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create namespaces here."""


def available() -> str | None:
    """None when the full sandbox (bubblewrap) can run here, else the reason it cannot."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    if os.geteuid() != 0:
        return "the sandbox drops to a dedicated uid, which needs the grader to run as root"
    return _bwrap_problem()


@functools.cache
def _bwrap_problem() -> str | None:
    """None if bubblewrap can create its namespaces here (containers often forbid it)."""
    probe = ["bwrap", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        run = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not run: {exc}"
    return None if run.returncode == 0 else f"bubblewrap cannot create namespaces here: {run.stderr.strip()[:200]}"


def user_only_problem() -> str | None:
    """None when the reduced sandbox (own uid, no capabilities, limits; no namespaces) can run."""
    if os.geteuid() != 0:
        return "running learner code as its own uid needs the grader to run as root"
    missing = [tool for tool in ("setpriv", "prlimit") if shutil.which(tool) is None]
    return f"{', '.join(missing)} not installed (util-linux)" if missing else None


@functools.cache
def _python_dirs() -> list[str]:
    """Folders the kernel needs to run Python and import the installed packages."""
    dirs = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        str(Path(os.path.realpath(sys.executable)).parent.parent),
    }
    for entry in sys.path:
        if entry and Path(entry).is_dir() and "site-packages" in entry:
            dirs.add(entry)
    # never mount a folder that holds the repository (solutions, courses, results)
    repo = str(Path(__file__).resolve().parent.parent)
    return sorted(d for d in dirs if not repo.startswith(d.rstrip("/") + "/") and d != "/")


def mkdirs(path: str, made: set[str]) -> list[str]:
    """bwrap arguments creating each missing ancestor of path as a 0755 folder."""
    args = []
    parts = Path(path).parts
    for i in range(2, len(parts)):
        parent = str(Path(*parts[:i]))
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", parent]
    return args


def cgroup_tree(kind: str) -> Path | None:
    """The v1 cgroup hierarchy of this kind, if the grader can create groups in it."""
    base = CGROUP_ROOT / kind
    return base if base.is_dir() and os.access(base, os.W_OK) else None


def _cgroup(kind: str, name: str, settings: dict[str, str]) -> Path | None:
    """A v1 cgroup with the given settings, or None if cgroups are not writable here."""
    base = cgroup_tree(kind)
    if base is None:
        return None
    group = base / name
    try:
        group.mkdir(exist_ok=True)
        for key, value in settings.items():
            (group / key).write_text(value)
    except OSError:
        return None
    return group


# fmt: off
ISOLATION = [
    "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
    "--perms", "1777", "--tmpfs", "/tmp",
    # in a pid namespace the kernel's parent looks like init: don't let it quit
    "--unsetenv", "JPY_PARENT_PID",
]
# fmt: on
KERNEL_ENV = {"HOME": "/tmp", "MPLCONFIGDIR": "/tmp/mpl", "IPYTHONDIR": "/tmp/ipython", "TMPDIR": "/tmp"}
_ENV = [arg for key, value in KERNEL_ENV.items() for arg in ("--setenv", key, value)]


def _drop_privileges(uid: int, limits: Limits) -> list[str]:
    """setpriv to the sandbox uid with no capabilities, then per-user process and core limits."""
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    drop += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    prlimit = ["prlimit", f"--nproc={limits.processes}", "--core=0", f"--fsize={limits.file_bytes}", "--"]
    return drop + prlimit


def read_only_system(made: set[str]) -> list[str]:
    """bwrap arguments mounting the system and the Python installation read-only."""
    args = []
    for d in _SYSTEM_DIRS:
        if Path(d).exists():
            args += ["--ro-bind", d, d]
            made.add(d)
    for d in _python_dirs():
        args += mkdirs(d, made) + ["--ro-bind", d, d]
    return args


def bwrap_command(work: Path, export: Path, ipc: Path, limits: Limits, uid: int, kernel_cmd: list[str]) -> list[str]:
    """The full command: join cgroups, then bwrap, then drop to uid, then the kernel."""
    made: set[str] = set()
    args = ["bwrap", *ISOLATION, *read_only_system(made)]
    for d in (work, export, ipc):
        args += mkdirs(str(d), made) + ["--bind", str(d), str(d)]
    args += ["--ro-bind", str(work / "workbook.py"), str(work / "workbook.py")]
    args += ["--chdir", str(work), *_ENV, "--"]
    return args + _drop_privileges(uid, limits) + kernel_cmd


def _job_cgroups(name: str, limits: Limits) -> tuple[Path | None, Path | None, Path | None]:
    """The job's pids, memory and cpu cgroups (None where cgroups are not writable here)."""
    return (
        _cgroup("pids", name, {"pids.max": str(limits.processes)}),
        _cgroup("memory", name, {"memory.limit_in_bytes": str(limits.memory_bytes)}),
        _cgroup("cpu", name, {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": str(int(limits.cpus * 100000))}),
    )


def _cgroup_prefix(name: str, groups: tuple[Path | None, ...], limits: Limits, pidfile: Path, ipc: Path) -> list[str]:
    """sh -c that notes its pid, joins the pids/memory cgroups (or sets RLIMIT_AS), then execs."""
    # the pid file, written as root where the kernel cannot reach, lets a later run kill an orphan
    steps = [f"echo $$ {ipc} {name} > {pidfile}"] + [f"echo $$ > {g}/cgroup.procs" for g in groups if g]
    steps += [] if groups[1] else [f"prlimit --pid $$ --as={limits.memory_bytes}"]
    return ["sh", "-c", "; ".join(steps) + '; exec "$@"', "sandbox"]


def user_only_command(ipc: Path, limits: Limits, uid: int, kernel_cmd: list[str]) -> list[str]:
    """The reduced sandbox: no namespaces, only a uid of its own with a private home in `ipc`."""
    home = [f"HOME={ipc}", f"MPLCONFIGDIR={ipc}/mpl", f"IPYTHONDIR={ipc}/ipython", f"TMPDIR={ipc}"]
    return ["env", *home] + _drop_privileges(uid, limits) + kernel_cmd


def _fork_request(work: Path, export: Path, limits: Limits, uid: int, groups, connection_file: str) -> dict:
    """What the fork server needs to start this job's kernel (see autograder.forkserver)."""
    return {
        "connection_file": connection_file,
        "work": str(work),
        "export": str(export),
        "ipc": str(Path(connection_file).parent),
        "work_root": str(work.parent.parent),  # work is WORK_ROOT/<learner>/<notebook>
        "uid": uid,
        "cgroups": [str(g) for g in groups if g],
        "memory_cgroup": groups[1] is not None,
        "limits": {"processes": limits.processes, "memory_bytes": limits.memory_bytes, "file_bytes": limits.file_bytes},
        "env": KERNEL_ENV,
        # Python installed under /tmp (a venv in a checkout there) must survive the private /tmp
        "read_only": _outermost(d for d in _python_dirs() if d.startswith("/tmp/")),
    }


def _outermost(dirs) -> list[str]:
    """The folders not inside another of them."""
    dirs = sorted(set(dirs))
    return [d for d in dirs if not any(d.startswith(other.rstrip("/") + "/") for other in dirs)]


def kernel_manager_class(
    work: Path, export: Path, limits: Limits, uid: int = SANDBOX_UID, isolate: bool = True, forkserver: str = ""
):
    """An AsyncKernelManager class whose kernels start inside the sandbox for this job.

    isolate=False is the reduced sandbox (Gradescope's containers forbid namespaces): the
    caller must make everything the learner may not read unreadable to other users.
    forkserver: the socket of a running preload server (autograder.preload); the kernel is
    then forked from it, already sandboxed, instead of started by bwrap.
    """
    for d in (work, export):
        os.chown(d, uid, uid)
        os.chmod(d, 0o700)
        for child in d.iterdir():
            if child.name != "workbook.py":
                os.chown(child, uid, uid)
    # unix socket paths are limited to ~107 bytes: keep them short, under /tmp
    ipc = Path(tempfile.mkdtemp(prefix="agk-", dir=Path(forkserver).parent.parent if forkserver else "/tmp"))
    os.chown(ipc, uid, uid)
    name = f"autograder-{uuid.uuid4().hex[:12]}"
    pidfile = work.with_name(f"{work.name}.kernel-pid")

    class SandboxKernelManager(AsyncKernelManager):
        """Starts the kernel in the sandbox and connects over unix sockets in `ipc`."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = str(ipc / "kernel")
            self.connection_file = str(ipc / "connection.json")

        def format_kernel_cmd(self, extra_arguments=None):
            os.chown(self.connection_file, uid, uid)  # the kernel's uid must read its key
            groups = _job_cgroups(name, limits)
            if forkserver:  # the server starts the kernel itself: no kernel command to wrap
                request = _fork_request(work, export, limits, uid, groups, self.connection_file)
                inner = [sys.executable, "-I", "-S", str(RELAY), forkserver, json.dumps(request)]
            elif isolate:
                kernel = with_seccomp(ipc, super().format_kernel_cmd(extra_arguments))
                inner = bwrap_command(work, export, ipc, limits, uid, kernel)
            else:
                kernel = with_seccomp(ipc, super().format_kernel_cmd(extra_arguments))
                inner = user_only_command(ipc, limits, uid, kernel)
            return _cgroup_prefix(name, groups, limits, pidfile, ipc) + inner

        @staticmethod
        def release() -> bool:
            """Remove this job's cgroups and socket folder; True if the memory limit was hit."""
            pidfile.unlink(missing_ok=True)
            return release_job(name, ipc)

    return SandboxKernelManager


def remove_tree(path: Path) -> None:
    """Remove a folder a learner's code could have filled (any depth, any names), never following links."""
    subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False, stderr=subprocess.DEVNULL)


def with_seccomp(ipc: Path, kernel_cmd: list[str]) -> list[str]:
    """The kernel command behind the seccomp filter (autograder/seccomp.py, copied where the kernel sees it)."""
    shutil.copyfile(SECCOMP, ipc / "seccomp.py")
    return [sys.executable, "-I", str(ipc / "seccomp.py"), "--", *kernel_cmd]


def release_job(name: str, ipc: Path) -> bool:
    """Kill what is left in the job's cgroups, remove them and the socket folder.

    Returns True when the memory cgroup recorded an allocation over its limit.
    """
    remove_tree(ipc)
    try:
        memory_hit = int((CGROUP_ROOT / "memory" / name / "memory.failcnt").read_text()) > 0
    except (OSError, ValueError):
        memory_hit = False
    for kind in ("pids", "memory", "cpu"):
        group = CGROUP_ROOT / kind / name
        if not group.is_dir():
            continue
        for _ in range(50):
            try:
                pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
                for pid in pids:
                    os.kill(pid, 9)
                group.rmdir()
                break
            except (OSError, ValueError):
                time.sleep(0.1)
    return memory_hit


def _still_running(pid: str, ipc: str) -> bool:
    """The process is alive and is still the kernel of that socket folder (not a reused pid)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return ipc.encode() in fh.read()
    except OSError:
        return False


def sweep_orphans(work_root: Path) -> int:
    """Kill the kernels a killed grading run left under work_root (their pid files say which)."""
    swept = 0
    for pidfile in work_root.glob("*/*.kernel-pid"):
        fields = pidfile.read_text().split()
        if len(fields) == 3:
            pid, ipc, name = fields
            if _still_running(pid, ipc):
                os.kill(int(pid), 9)  # bwrap --die-with-parent takes the whole sandbox with it
                swept += 1
            release_job(name, Path(ipc))
        pidfile.unlink(missing_ok=True)
    return swept
