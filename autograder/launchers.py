"""How a learner's kernel starts: one launcher per sandbox mode, picked in one place (`choose`).

    forkserver  root: forked, already sandboxed, from a server with torch preloaded (fastest)
    bwrap       root: one bubblewrap per kernel, a uid of its own per job, cgroups
    rootless    an ordinary user: one bubblewrap per kernel in an unprivileged user namespace
    user-only   root where namespaces are forbidden (Gradescope): a uid of its own, no namespaces
    unsafe      no sandbox (--unsafe)

A launcher answers three questions for one job: who owns its folders, what command
starts its kernel, and what the run must hold open around the jobs (the fork server).
Everything else (the kernel manager, the environment, the clean-up) is shared here.
Adding a mode is adding one class to LAUNCHERS.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from jupyter_client.manager import AsyncKernelManager

from autograder import preload, sandbox
from autograder.limits import Limits
from autograder.reference import kernel_env


class NoSandbox(RuntimeError):
    """No sandbox can run here, and --unsafe was not given."""


@dataclass(frozen=True)
class Launch:
    """The mode a job's kernel starts in, as a Job carries it (picklable)."""

    mode: str
    server: str = ""  # the run's fork server socket (forkserver mode)


@dataclass(frozen=True)
class KernelJob:
    """One job's kernel: its folders, limits, uid and the names its clean-up needs."""

    work: Path
    export: Path
    ipc: Path  # the socket folder (short path: unix sockets allow ~107 bytes)
    limits: Limits
    uid: int
    name: str  # its cgroups' name
    pidfile: Path  # lets a later run kill this kernel if this run is killed


class Launcher:
    """Starts one job's kernel in one sandbox mode."""

    mode: ClassVar[str]
    sandboxed: ClassVar[bool] = True
    own_uid: ClassVar[bool] = True  # the job runs as a uid of its own: its folders are handed to it

    def __init__(self, launch: Launch) -> None:
        self.launch = launch

    def ipc_parent(self) -> str:
        """Where the job's socket folder goes."""
        return "/tmp"

    def command(self, job: KernelJob, kernel_cmd: list[str], connection_file: str) -> list[str]:
        """The command that starts the kernel `kernel_cmd`: join the job's cgroups, then this mode's sandbox."""
        groups = sandbox.job_cgroups(job.name, job.limits)
        return sandbox.cgroup_prefix(job, groups) + self.sandboxed_kernel(job, kernel_cmd, groups, connection_file)

    def sandboxed_kernel(self, job: KernelJob, kernel_cmd: list[str], groups, connection_file: str) -> list[str]:
        """The kernel command inside this mode's sandbox (after the cgroups are joined)."""
        raise NotImplementedError

    @contextmanager
    def serving(self, work_root: Path) -> Iterator[Callable[[], Launch]]:
        """What the run holds open around its jobs; yields a function giving the Launch its jobs carry.

        The function may wait (for a server started on entering): the run does its own set-up in between.
        """
        yield lambda: self.launch


class BwrapLauncher(Launcher):
    """As root: one bubblewrap per kernel, the job's own uid, cgroups where writable."""

    mode = "bwrap"
    rootless: ClassVar[bool] = False

    def sandboxed_kernel(self, job, kernel_cmd, groups, connection_file):
        return sandbox.bwrap_command(job, sandbox.with_seccomp(job.ipc, kernel_cmd), rootless=self.rootless)


class ForkServerLauncher(BwrapLauncher):
    """As root: the kernel is forked, already sandboxed, from the run's preloaded server."""

    mode = "forkserver"

    def ipc_parent(self) -> str:
        return str(Path(self.launch.server).parent.parent)

    def sandboxed_kernel(self, job, kernel_cmd, groups, connection_file):
        request = sandbox.fork_request(job, groups, connection_file)
        return [sys.executable, "-I", "-S", str(sandbox.RELAY), self.launch.server, json.dumps(request)]

    @contextmanager
    def serving(self, work_root: Path) -> Iterator[Callable[[], Launch]]:
        """The fork server for this run; if it does not start, every kernel is started by bwrap."""
        with preload.starting(work_root, kernel_env("/tmp")) as ready:

            def launch() -> Launch:
                server = ready()
                return Launch(self.mode, server) if server else Launch(BwrapLauncher.mode)

            yield launch


class RootlessLauncher(BwrapLauncher):
    """An ordinary user: bubblewrap in an unprivileged user namespace, rlimits (cgroups where delegated)."""

    mode = "rootless"
    rootless = True
    own_uid = False  # one uid is all an unprivileged user has; the namespaces keep jobs apart


class UserOnlyLauncher(Launcher):
    """As root where namespaces are forbidden (Gradescope): the job's own uid, limits, no namespaces."""

    mode = "user-only"

    def sandboxed_kernel(self, job, kernel_cmd, groups, connection_file):
        return sandbox.user_only_command(job, sandbox.with_seccomp(job.ipc, kernel_cmd))


class UnsafeLauncher(Launcher):
    """No sandbox: the kernel runs as the grader's user (--unsafe)."""

    mode = "unsafe"
    sandboxed = False
    own_uid = False


LAUNCHERS: dict[str, type[Launcher]] = {
    cls.mode: cls for cls in (ForkServerLauncher, BwrapLauncher, RootlessLauncher, UserOnlyLauncher, UnsafeLauncher)
}


def launcher(launch: Launch) -> Launcher:
    """The launcher a job's Launch names."""
    return LAUNCHERS[launch.mode](launch)


def choose(unsafe: bool = False, requested: str = "", environ=os.environ, container: bool = False) -> Launcher:
    """The one place a mode is picked: from the command line, the environment and what this system allows.

    requested (or AUTOGRADER_SANDBOX): a mode by name; "": the strongest that runs here.
    container: a throwaway container per submission (Gradescope), where the reduced
    sandbox, and failing that none, is accepted. Otherwise raises NoSandbox, saying what
    to install or enable, when no sandbox can run and `unsafe` is False.
    """
    if unsafe:
        return UnsafeLauncher(Launch("unsafe"))
    mode = requested or environ.get("AUTOGRADER_SANDBOX", "")
    if mode == "user":
        mode = "user-only"
    if mode:
        if mode not in LAUNCHERS:
            raise NoSandbox(f"AUTOGRADER_SANDBOX={mode!r} is not a sandbox mode ({', '.join(LAUNCHERS)})")
        problem = sandbox.mode_problem(mode)
        if problem:
            raise NoSandbox(f"the {mode} sandbox cannot run here: {problem}")
        return LAUNCHERS[mode](Launch(mode))
    problem = sandbox.available()
    if problem and container:
        reduced = sandbox.user_only_problem()
        if reduced is None:
            print(f"NOTE: {problem}; learner code runs as its own uid without namespaces", file=sys.stderr)
            return UserOnlyLauncher(Launch("user-only"))
        print(f"WARNING: no sandbox ({problem}; {reduced}); grading without it", file=sys.stderr)
        return UnsafeLauncher(Launch("unsafe"))
    if problem:
        raise NoSandbox(problem)
    if os.geteuid() != 0:
        return RootlessLauncher(Launch("rootless"))
    if environ.get("AUTOGRADER_PRELOAD", "1") == "0":
        return BwrapLauncher(Launch("bwrap"))
    return ForkServerLauncher(Launch("forkserver"))


def manager_class(launch: Launch, work: Path, export: Path, limits: Limits, uid: int):
    """An AsyncKernelManager class that starts this job's kernel in its mode's sandbox (None: unsafe)."""
    how = launcher(launch)
    if not how.sandboxed:
        return None
    ipc = Path(tempfile.mkdtemp(prefix="agk-", dir=how.ipc_parent()))
    uid = uid if how.own_uid else os.geteuid()
    name, pidfile = f"autograder-{uuid.uuid4().hex[:12]}", work.with_name(f"{work.name}.kernel-pid")
    job = KernelJob(work, export, ipc, limits, uid, name, pidfile)
    if how.own_uid:
        sandbox.hand_over(job)

    class SandboxKernelManager(AsyncKernelManager):
        """Starts the kernel in the sandbox and connects over unix sockets in the job's folder."""

        kernel_job, own_uid = job, how.own_uid  # where its processes are, for autograder.membudget

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = str(ipc / "kernel")
            self.connection_file = str(ipc / "connection.json")

        def format_kernel_cmd(self, extra_arguments=None):
            if how.own_uid:
                os.chown(self.connection_file, uid, uid)  # the kernel's uid must read its key
            return how.command(job, super().format_kernel_cmd(extra_arguments), self.connection_file)

        @staticmethod
        def release() -> bool:
            """Remove this job's cgroups and socket folder; True if the memory limit was hit."""
            sandbox.kill_recorded(job.pidfile)  # where no cgroup holds the job, its sandbox's outer process does
            return sandbox.release_job(job.name, ipc)

    return SandboxKernelManager
