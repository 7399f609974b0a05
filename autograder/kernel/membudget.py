"""A memory budget for one call of the learner's code, kept by the operating system outside the kernel.

A check such as "tiled attention never holds the (L, S) matrix" cannot be measured in the
grader's process (the tensors live in the kernel) nor asked of the kernel (the learner's code
would answer). So the grader measures the kernel from outside, where the learner cannot reach:

    memory cgroup   the job's own group (root, or a delegated one): its high-water mark is reset
                    before the call and read after it (v1 memory.max_usage_in_bytes; v2
                    memory.peak, where the kernel lets a writer reset it). It counts every page
                    every process of the job touched, and only root (or the delegated user, whose
                    cgroup files the kernel's sandbox does not mount) may write it.
    address space   elsewhere: RLIMIT_AS of each of the job's processes (those of its own uid, or
                    those descending from the process its kernel manager started) is lowered to
                    what it maps now plus the budget, for the call; an allocation past it fails in
                    the kernel. Where the grader may raise limits again (CAP_SYS_RESOURCE, which root
                    usually holds) the hard limit is lowered too and put back after, so the learner
                    cannot raise it; elsewhere only the soft limit is lowered, and a call after which
                    the kernel's soft limit is not the one set counts as over budget.

A call that fails under the address-space limit is run once more without it: if it then
succeeds, the limit is what stopped it (over budget); if not, its own error is raised.
"""

from __future__ import annotations

import contextlib
import os
import resource
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.kernel import cgroups

Call = Callable[[], Any]
_CAP_SYS_RESOURCE = 24


@dataclass(frozen=True)
class KernelProcesses:
    """Where a job's kernel is, as the grader knows it (never as the kernel reports it)."""

    memory_group: Path | None = None  # the job's memory cgroup folder
    uid: int | None = None  # the job's own uid (its processes are those of that uid)
    root_pid: int | None = None  # else: the process the kernel manager started

    def pids(self, uids: dict[int, int] | None = None) -> list[int]:
        """The job's processes now (read from /proc). `uids`: the uid of each pid already read, kept by a caller
        that polls (PrivateWatch): a process's real uid does not change, so each is read once."""
        if self.uid is not None:
            return [pid for pid, uid in _processes(uids) if uid == self.uid]
        return _descendants(self.root_pid) if self.root_pid is not None else []

    def live(self) -> set[int]:
        """The job's processes now, zombies left out (an ended process runs nothing): its memory cgroup's
        members where it has one, else pids()."""
        members: list[int] = []
        if self.memory_group is not None:
            with contextlib.suppress(OSError, ValueError):
                members = [int(p) for p in (self.memory_group / "cgroup.procs").read_text().split()]
        return {pid for pid in set(members) | set(self.pids()) if not _zombie(pid)}


def _zombie(pid: int) -> bool:
    """Whether the process has ended (its state Z or X) or is gone."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def _processes(uids: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """(pid, real uid) of every process (those in `uids` not read again; those read added to it)."""
    found = []
    listed = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            pid = int(entry.name)
            listed.add(pid)
            if uids is not None and pid in uids:
                found.append((pid, uids[pid]))
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                uid_line = next(ln for ln in (entry / "status").read_text().splitlines() if ln.startswith("Uid:"))
                found.append((pid, int(uid_line.split()[1])))
                if uids is not None:
                    uids[pid] = found[-1][1]
    if uids is not None:  # a pid gone from /proc is forgotten: if it comes back, its uid is read again
        for gone in set(uids) - listed:
            del uids[gone]
    return found


def _descendants(root: int) -> list[int]:
    """root and every process below it (parents read from /proc/<pid>/stat)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _read_int(path: Path) -> int:
    return int(path.read_text().split()[0])


def group_peak(group: Path, fn: Call) -> int | None:
    """Bytes the group's usage rose by at most during fn() (None: the group cannot be reset here)."""
    v1 = group / "memory.max_usage_in_bytes"
    if v1.exists():
        v1.write_text("0")  # the high-water mark starts again from the current usage
        base = _read_int(group / "memory.usage_in_bytes")
        fn()
        return _read_int(v1) - base
    try:
        fd = os.open(group / "memory.peak", os.O_RDWR)
    except OSError:
        return None
    try:
        try:
            os.write(fd, b"reset\n")  # Linux 6.12+: this file descriptor's peak restarts now
        except OSError:
            return None
        base = _read_int(group / "memory.current")
        fn()
        return int(os.pread(fd, 64, 0).split()[0]) - base
    finally:
        os.close(fd)


def _mapped(pid: int) -> int:
    """The bytes of address space the process maps now."""
    return int(Path(f"/proc/{pid}/statm").read_text().split()[0]) * resource.getpagesize()


def _lesser(a: int, b: int) -> int:
    """The lower of two rlimit values (RLIM_INFINITY, -1 here, is the highest)."""
    return b if a == resource.RLIM_INFINITY else a if b == resource.RLIM_INFINITY else min(a, b)


def can_raise_hard_limits() -> bool:
    """Whether this process holds CAP_SYS_RESOURCE, so that it can put back a hard limit it lowered."""
    with contextlib.suppress(OSError, StopIteration, ValueError):
        line = next(ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("CapEff:"))
        return bool(int(line.split()[1], 16) >> _CAP_SYS_RESOURCE & 1)
    return False


def _lower(pids: list[int], budget: int) -> dict[int, tuple[tuple[int, int], int]]:
    """Lower each process's RLIMIT_AS to what it maps plus the budget: pid -> (limits before, soft set)."""
    root, saved = can_raise_hard_limits(), {}
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            soft, hard = resource.prlimit(pid, resource.RLIMIT_AS)
            cap = _mapped(pid) + budget
            new_soft = _lesser(_lesser(soft, cap), hard)
            resource.prlimit(pid, resource.RLIMIT_AS, (new_soft, new_soft if root else hard))
            saved[pid] = ((soft, hard), new_soft)
    return saved


def _restore(saved: dict[int, tuple[tuple[int, int], int]]) -> bool:
    """Put the limits back; False if a process's soft limit was no longer the one set (it raised it)."""
    kept = True
    for pid, (before, soft_set) in saved.items():
        with contextlib.suppress(OSError, ValueError):  # a process that ended meanwhile
            kept = kept and resource.prlimit(pid, resource.RLIMIT_AS)[0] == soft_set
            resource.prlimit(pid, resource.RLIMIT_AS, before)
    return kept


def address_space_fits(pids: list[int], fn: Call, budget: int) -> bool:
    """Whether fn() runs with the job's address space capped at what it maps now plus the budget."""
    saved = _lower(pids, budget)
    if not saved:
        raise RuntimeError("the grader cannot set the kernel's memory limit here")
    failed: BaseException | None = None
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - decided below: the limit, or the learner's own error
        failed = exc
    finally:
        kept = _restore(saved)
    if failed is None:
        return kept
    fn()  # without the limit: if this raises too, the error is the learner's own
    return False


def _private_bytes(pid: int) -> int:
    """The bytes a process holds that no other process shares (smaps_rollup's Private_Clean + Private_Dirty)."""
    total = 0
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1]) * 1024
    return total


class PrivateWatch:
    """The most private memory the job's new processes (the call's copy of the kernel) hold, polled while fn() runs.

    A forked copy shares every page of the kernel's until it writes one: its private bytes are what
    the call made or wrote, buffers the kernel allocated earlier included. Where /proc cannot be read
    (another user's process), it reads 0 and the other measure decides alone.
    """

    def __init__(self, processes: KernelProcesses, interval: float = 0.004) -> None:
        self.processes, self.interval, self.peak = processes, interval, 0
        # every 4 ms, /proc/<pid>/status of every process on the machine was read again: a core's worth
        # of reading while the call ran on a busy machine. A pid is not reused while a call runs.
        self.uids: dict[int, int] = {}
        self.before = set(processes.pids(self.uids))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            new = [p for p in self.processes.pids(self.uids) if p not in self.before]
            self.peak = max(self.peak, sum(_private_bytes(p) for p in new))
            self._stop.wait(self.interval)

    def __enter__(self) -> PrivateWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def within(processes: KernelProcesses, fn: Call, budget: int) -> bool:
    """Whether fn() (a call of the learner's code) holds at most `budget` bytes at once, measured outside the kernel.

    Two measures, both outside the kernel, both must hold: the job's memory cgroup (or its address-space
    limit), and the private bytes of the copy of the kernel the call runs in (PrivateWatch), which count a
    buffer the kernel allocated before the call once the call writes to it.
    """
    with PrivateWatch(processes) as watch:
        fits = _group_or_address_space(processes, fn, budget)
    return fits and watch.peak <= budget


def _group_or_address_space(processes: KernelProcesses, fn: Call, budget: int) -> bool:
    if processes.memory_group is not None:
        peak = group_peak(processes.memory_group, fn)
        if peak is not None:
            return peak <= budget
    return address_space_fits(processes.pids(), fn, budget)


def for_kernel(km: Any) -> Callable[[Call, int], bool]:
    """The budget for one job's kernel, from what its kernel manager knows (autograder.kernel.launchers)."""
    processes = job_processes(km)
    return lambda fn, budget: within(processes, fn, budget)


def note_started(km: Any) -> None:
    """Remember the job's processes as its kernel has just started, before any cell: the kernel and its
    sandbox's own (bwrap, its init). Every other process of the job later is one the learner's code made."""
    km.wb_processes = job_processes(km)  # where they are is found once: the job's group and uid do not change
    km.wb_started = frozenset(km.wb_processes.live())


def others(km: Any) -> set[int] | None:
    """The job's live processes that were not there when its kernel started (None: never noted)."""
    started = getattr(km, "wb_started", None)
    if not isinstance(started, frozenset) or not started:
        return None
    return km.wb_processes.live() - started


def job_processes(km: Any) -> KernelProcesses:
    """Where one job's processes are, from what its kernel manager knows (autograder.kernel.launchers)."""
    job = getattr(km, "kernel_job", None)
    provisioner = getattr(km, "provisioner", None)
    root_pid = getattr(provisioner, "pid", None)
    group = None
    if job is not None:
        found = cgroups.tree()
        base = found.base("memory") if found else None
        members = base / job.name / "cgroup.procs" if base else None
        if members is not None and members.exists() and members.read_text().split():
            group = base / job.name
    uid = job.uid if job is not None and getattr(km, "own_uid", False) else None
    return KernelProcesses(group, uid, root_pid)
