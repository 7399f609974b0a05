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

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import zmq
import zmq.asyncio
from jupyter_client.manager import AsyncKernelManager

from autograder import paths
from autograder.kernel import preload, sandbox, wire
from autograder.kernel.guarded import GuardedSession
from autograder.kernel.limits import Limits
from autograder.kernel.reference import kernel_env


class NoSandbox(RuntimeError):
    """No sandbox can run here, and --unsafe was not given."""


@dataclass(frozen=True)
class Launch:
    """The mode a job's kernel starts in, as a Job carries it (picklable)."""

    mode: str
    server: str = ""  # the run's fork server socket (forkserver mode)


@dataclass(frozen=True, kw_only=True)
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
    def serving(self, work_root: Path, optimizers: bool = False) -> Iterator[Callable[[], Launch]]:
        """What the run holds open around its jobs; yields a function giving the Launch its jobs carry.

        The function may wait (for a server started on entering): the run does its own set-up in between.
        `optimizers`: the run's notebooks train (a fork server preloads an optimizer's first use).
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
        extra = kernel_cmd[kernel_cmd.index(connection_file) + 1 :]  # what the kernel runs with (reference.kernel_args)
        request = sandbox.fork_request(job, groups, connection_file, extra)
        return [sys.executable, "-I", "-S", str(sandbox.RELAY), self.launch.server, json.dumps(request)]

    @contextmanager
    def serving(self, work_root: Path, optimizers: bool = False) -> Iterator[Callable[[], Launch]]:
        """The fork server for this run; if it does not start, every kernel is started by bwrap."""
        with preload.starting(work_root, kernel_env("/tmp"), optimizers) as ready:

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


def choose(
    unsafe: bool = False, requested: str = "", environ=os.environ, container: bool = False, trusted: bool = False
) -> Launcher:
    """The one place a mode is picked: from the command line, the environment and what this system allows.

    requested (or AUTOGRADER_SANDBOX): a mode by name; "": the strongest that runs here.
    container: a throwaway container per submission (Gradescope), where the reduced
    sandbox, and failing that none, is accepted. trusted: code of the project's own (the
    sample submissions, the test suite, the benchmarks): the strongest sandbox that runs
    here, or none. Otherwise raises NoSandbox, saying what to install or enable, when no
    sandbox can run and `unsafe` is False.
    """
    if unsafe:
        return UnsafeLauncher(Launch("unsafe"))
    if trusted and not requested and not environ.get("AUTOGRADER_SANDBOX") and sandbox.available():
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


CHANNELS = ("shell", "control", "stdin", "iopub", "hb")


class ChannelRelay:
    """The process between the grader and one kernel's channels (autograder/shipped/channel_relay.py)."""

    def __init__(self, info: dict, limits: wire.WireLimits) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="agr-"))  # the grader's own /tmp: no kernel sees it
        self.ip = str(self.folder / "g")
        kernel = {name: f"ipc://{info['ip']}-{info[f'{name}_port']}" for name in CHANNELS}
        config = {
            "kernel": kernel,
            "grader": {name: f"ipc://{self.ip}-{info[f'{name}_port']}" for name in CHANNELS},
            "identity": uuid.uuid4().hex,
            "frame_bytes": limits.message_bytes,
            "message_bytes": limits.reply_bytes + 8 * 2**20,
            "small_bytes": limits.small_message_bytes,
            "callback_bytes": limits.callback_bytes + 2**16,
            "frames": limits.arrays + 16,
            "queued": limits.queued_messages,
            "memory_bytes": limits.relay_memory_bytes,
        }
        (self.folder / "relay.json").write_text(json.dumps(config))
        cmd = [sys.executable, "-I", str(paths.CHANNEL_RELAY), str(self.folder / "relay.json")]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None  # opened with stdout=PIPE
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        if not ready or self.proc.stdout.readline().strip() != b"ready":
            self.close()
            raise RuntimeError("the channel relay did not start")

    def close(self) -> None:
        """Stop the relay and remove its sockets."""
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def capped_context(limits: wire.WireLimits) -> zmq.asyncio.Context:
    """A ZeroMQ context whose sockets drop any frame over the limit and queue few messages unread.

    Every channel to the kernel (iopub, shell, stdin, control, heartbeat) is created from it,
    so a message the kernel publishes is bounded before jupyter_client decodes it.
    """
    context = zmq.asyncio.Context()
    context.setsockopt(zmq.MAXMSGSIZE, limits.message_bytes)
    context.setsockopt(zmq.RCVHWM, limits.queued_messages)
    return context


class CappedKernelManager(AsyncKernelManager):
    """A kernel manager whose client reads the kernel's channels through a capped context."""

    wire_limits = wire.WireLimits()

    def _session_default(self) -> GuardedSession:
        """The session the client clones: a message from the kernel it cannot read is ignored, not raised."""
        return GuardedSession(parent=self)

    def client(self, **kwargs):
        kwargs.setdefault("context", capped_context(self.wire_limits))
        kc = super().client(**kwargs)
        kc._created_context = True  # destroyed with the client
        return kc

    @staticmethod
    def release() -> bool:
        return False


def manager_class(launch: Launch, work: Path, export: Path, limits: Limits, uid: int):
    """An AsyncKernelManager class that starts this job's kernel in its mode's sandbox (unsafe: as this user)."""
    how = launcher(launch)
    if not how.sandboxed:
        return CappedKernelManager
    ipc = Path(tempfile.mkdtemp(prefix="agk-", dir=how.ipc_parent()))
    uid = uid if how.own_uid else os.geteuid()
    name, pidfile = f"autograder-{uuid.uuid4().hex[:12]}", work.with_name(f"{work.name}.kernel-pid")
    job = KernelJob(work=work, export=export, ipc=ipc, limits=limits, uid=uid, name=name, pidfile=pidfile)
    if how.own_uid:
        sandbox.hand_over(job)

    relays: list[ChannelRelay] = []

    class SandboxKernelManager(CappedKernelManager):
        """Starts the kernel in the sandbox; the grader reaches it through a channel relay only."""

        def client(self, **kwargs):
            relay = ChannelRelay(dict(self.get_connection_info()), self.wire_limits)
            relays.append(relay)
            return super().client(ip=relay.ip, **kwargs)

        kernel_job, own_uid = job, how.own_uid  # where its processes are, for autograder.kernel.membudget

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
            while relays:
                relays.pop().close()
            return sandbox.release_job(job.name, ipc)

    return SandboxKernelManager
