"""The building blocks of the sandboxes a learner's kernel runs in (the modes are autograder.kernel.launchers).

The kernel sees a read-only system (/usr, /lib, /etc, the Python installation) and
only its own folders writable: its working folder (the notebook and the helper module),
the exchange folder where the grader puts its calls and reads the answers (plain arrays
and JSON), its socket folder and a private, size-limited /tmp. It cannot see the
repository, the solutions, the course folder with the gradebook, the home folder or any
other submission: they are not mounted. It runs in new pid/net/ipc/uts namespaces
with no capabilities, behind a seccomp filter, under process, file-size, CPU-time and
memory limits: as root, as a uid of its own with cgroups where writable; as an ordinary
user, in bubblewrap's unprivileged user namespace (no nested one allowed), with cgroups
where one is delegated to the user (autograder.kernel.cgroups says where).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from autograder import paths
from autograder.kernel import cgroups
from autograder.kernel.limits import Limits
from autograder.kernel.reference import home_env

SANDBOX_UID = 60000
SECCOMP = paths.SHIPPED / "seccomp.py"
RELAY = paths.SHIPPED / "kernel_relay.py"
_SYSTEM_DIRS = ["/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc", "/sbin"]


def available() -> str | None:
    """None when a full sandbox (bubblewrap, as root or in a user namespace) can run here, else why not."""
    if shutil.which("bwrap") is None:
        return (
            "bubblewrap (bwrap) is not installed. Install it (Debian/Ubuntu: sudo apt-get install bubblewrap; "
            "Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or grade on Gradescope"
        )
    return _bwrap_problem(os.geteuid() != 0)


def mode_problem(mode: str) -> str | None:
    """None when the named mode can run here, else why not."""
    if mode == "unsafe":
        return None
    if mode == "user-only":
        return user_only_problem()
    if mode in ("bwrap", "forkserver") and os.geteuid() != 0:
        return f"the {mode} mode gives each job a uid of its own, which needs root; as a user, use rootless"
    if mode == "rootless" and os.geteuid() == 0:
        return "the rootless mode is for an ordinary user; as root the bwrap and forkserver modes are stronger"
    return available()


@functools.cache
def _bwrap_problem(rootless: bool) -> str | None:
    """None if bubblewrap can create its namespaces here (containers and some distributions forbid it)."""
    user = ["--unshare-user", "--disable-userns"] if rootless else []
    probe = ["bwrap", "--unshare-all", *user, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    probe += ["--size", "1048576", "--tmpfs", "/tmp", "true"]
    try:
        run = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not run: {exc}"
    if run.returncode == 0:
        return None
    said = run.stderr.strip()[:300]
    if not rootless:
        return f"bubblewrap cannot create namespaces here ({said}); in a container, grade on Gradescope's path"
    return f"bubblewrap cannot create an unprivileged user namespace here ({said}). {_userns_advice()}"


def _userns_advice() -> str:
    """What to enable so that an ordinary user gets namespaces, from this system's own settings."""

    def read(path: str) -> str:
        try:
            return Path(path).read_text().strip()
        except OSError:
            return ""

    if read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return "Enable them: sudo sysctl kernel.unprivileged_userns_clone=1 (Debian)"
    if read("/proc/sys/user/max_user_namespaces") == "0":
        return "Enable them: sudo sysctl user.max_user_namespaces=15000"
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            "AppArmor restricts them (Ubuntu 24.04+): install Ubuntu's bwrap profile (apparmor-profiles: "
            "bwrap-userns-restrict) or sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0"
        )
    return "Grade as root, in a Linux VM with user namespaces, or on Gradescope"


def user_only_problem() -> str | None:
    """None when the reduced sandbox (own uid, no capabilities, limits; no namespaces) can run."""
    if os.geteuid() != 0:
        return "running learner code as its own uid needs the grader to run as root"
    missing = [tool for tool in ("setpriv", "prlimit") if shutil.which(tool) is None]
    return f"{', '.join(missing)} not installed (util-linux)" if missing else None


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
    repo = str(paths.ROOT)
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
    """The folder this controller's job groups are made in (autograder.kernel.cgroups), or None: none here."""
    found = cgroups.tree()
    return found.base(kind) if found else None


# fmt: off
ISOLATION = [
    "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
    # in a pid namespace the kernel's parent looks like init: don't let it quit
    "--unsetenv", "JPY_PARENT_PID",
]
# fmt: on


def private_tmp(limits: Limits) -> list[str]:
    """A private /tmp, a tmpfs as large as the job's disk limit (tmpfs is memory a user could fill)."""
    return ["--perms", "1777", "--size", str(limits.disk_bytes), "--tmpfs", "/tmp"]


def _limits(limits: Limits) -> list[str]:
    """prlimit for the job's processes, file size, CPU time and core dumps, then the command."""
    cpu = limits.notebook_seconds * 2  # a backstop: the grader stops the notebook at its wall-clock limit
    return ["prlimit", f"--nproc={limits.processes}", "--core=0", f"--fsize={limits.file_bytes}", f"--cpu={cpu}", "--"]


def _drop_privileges(uid: int, limits: Limits) -> list[str]:
    """setpriv to the sandbox uid with no capabilities, then the limits."""
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return drop + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"] + _limits(limits)


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


def bwrap_command(job, kernel_cmd: list[str], rootless: bool) -> list[str]:
    """bwrap around the kernel: the job's folders only, then (as root) drop to its uid; the limits.

    rootless: bubblewrap makes an unprivileged user namespace (and forbids another one
    inside it); the kernel keeps the user's uid there, with no capabilities.
    """
    made: set[str] = set()
    user = ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"] if rootless else []
    args = ["bwrap", *ISOLATION, *user, *private_tmp(job.limits), *read_only_system(made)]
    for d in (job.work, job.export, job.ipc):
        args += mkdirs(str(d), made) + ["--bind", str(d), str(d)]
    args += ["--ro-bind", str(job.work / "workbook.py"), str(job.work / "workbook.py")]
    args += ["--chdir", str(job.work), "--"]
    return args + (_limits(job.limits) if rootless else _drop_privileges(job.uid, job.limits)) + kernel_cmd


def job_cgroups(name: str, limits: Limits) -> cgroups.Groups:
    """The job's cgroups with its limits, in the tree found here (none: rlimits only)."""
    return cgroups.make(name, limits)


def cgroup_prefix(job, groups: cgroups.Groups) -> list[str]:
    """sh -c that notes its pid, joins the job's cgroups (or sets RLIMIT_AS), then execs the rest."""
    # the pid file, where the kernel cannot reach, lets a later run kill an orphan
    steps = [f"echo $$ {job.ipc} {job.name} > {job.pidfile}"]
    steps += [f"echo $$ > {g}/cgroup.procs" for g in groups.paths if g != groups.memory]
    rlimit_as = f"prlimit --pid $$ --as={job.limits.memory_bytes}"
    # a memory group that cannot be joined leaves the job under RLIMIT_AS instead
    steps += [f"{{ echo $$ > {groups.memory}/cgroup.procs || {rlimit_as}; }}" if groups.memory else rlimit_as]
    return ["sh", "-c", "; ".join(steps) + '; exec "$@"', "sandbox"]


def user_only_command(job, kernel_cmd: list[str]) -> list[str]:
    """The reduced sandbox: no namespaces, only a uid of its own with a private home in its socket folder."""
    home = [f"{key}={value}" for key, value in home_env(str(job.ipc)).items()]
    return ["env", *home] + _drop_privileges(job.uid, job.limits) + kernel_cmd


def fork_request(job, groups, connection_file: str, kernel_args: list[str] | None = None) -> dict:
    """What the fork server needs to start this job's kernel (see autograder.shipped.forkserver)."""
    limits = job.limits
    return {
        "connection_file": connection_file,
        "kernel_args": list(kernel_args or []),  # after `-f connection_file`, as ipykernel_launcher takes them
        "work": str(job.work),
        "export": str(job.export),
        "ipc": str(job.ipc),
        "work_root": str(job.work.parent.parent),  # work is WORK_ROOT/<learner>/<notebook>
        "uid": job.uid,
        "cgroups": [str(g) for g in groups.paths],
        "memory_cgroup": groups.memory is not None,
        "limits": {
            "processes": limits.processes,
            "memory_bytes": limits.memory_bytes,
            "file_bytes": limits.file_bytes,
            "disk_bytes": limits.disk_bytes,
        },
        # Python installed under /tmp (a venv in a checkout there) must survive the private /tmp
        "read_only": _outermost(d for d in _python_dirs() if d.startswith("/tmp/")),
    }


def _outermost(dirs) -> list[str]:
    """The folders not inside another of them."""
    dirs = sorted(set(dirs))
    return [d for d in dirs if not any(d.startswith(other.rstrip("/") + "/") for other in dirs)]


def hand_over(job) -> None:
    """Give the job's folders (all but the read-only helper) to its uid, readable by nobody else."""
    for d in (job.work, job.export):
        os.chown(d, job.uid, job.uid)
        os.chmod(d, 0o700)
        for child in d.iterdir():
            if child.name != "workbook.py":
                os.chown(child, job.uid, job.uid)
    os.chown(job.ipc, job.uid, job.uid)


def remove_tree(path: Path) -> None:
    """Remove a folder a learner's code could have filled (any depth, any names), never following links."""
    subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False, stderr=subprocess.DEVNULL)


def with_seccomp(ipc: Path, kernel_cmd: list[str]) -> list[str]:
    """The kernel command behind the seccomp filter (autograder/shipped/seccomp.py, copied where the kernel sees it)."""
    shutil.copyfile(SECCOMP, ipc / "seccomp.py")
    return [sys.executable, "-I", str(ipc / "seccomp.py"), "--", *kernel_cmd]


def release_job(name: str, ipc: Path) -> bool:
    """Kill what is left in the job's cgroups, remove them and the socket folder.

    Returns True when the memory cgroup recorded an allocation over its limit.
    """
    remove_tree(ipc)
    return cgroups.release(name)


def _still_running(pid: str, ipc: str) -> bool:
    """The process is alive and is still the kernel of that socket folder (not a reused pid)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return ipc.encode() in fh.read()
    except OSError:
        return False


def kill_recorded(pidfile: Path) -> None:
    """Kill the sandbox whose outer process the pid file names (bwrap takes its namespace with it)."""
    try:
        fields = pidfile.read_text().split()
    except OSError:
        return
    if len(fields) == 3 and _still_running(fields[0], fields[1]):
        with contextlib.suppress(OSError):
            os.kill(int(fields[0]), 9)
    pidfile.unlink(missing_ok=True)


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
