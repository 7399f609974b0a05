"""The memory budget of one call, kept by the operating system outside the process that runs it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from autograder.kernel import membudget

CHILD = """
import sys
for line in sys.stdin:
    try:
        block = b"x" * (int(line) << 20)  # written, so every page is resident
        del block
        print("ok", flush=True)
    except MemoryError:
        print("memory", flush=True)
"""
MIB = 2**20
V1_MEMORY = Path("/sys/fs/cgroup/memory")


@pytest.fixture
def child():
    """A process that allocates (and writes) N MiB whenever it reads N; call(n) asks it and waits."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(mib: int) -> None:
        proc.stdin.write(f"{mib}\n")
        proc.stdin.flush()
        if proc.stdout.readline().strip() == "memory":
            raise MemoryError(f"could not allocate {mib} MiB")

    yield proc, call
    proc.kill()
    proc.wait()


def test_the_address_space_limit_stops_a_call_over_budget(child):
    proc, call = child
    before = resource.prlimit(proc.pid, resource.RLIMIT_AS)
    processes = membudget.KernelProcesses(root_pid=proc.pid)
    assert membudget.within(processes, lambda: call(8), 64 * MIB)
    assert not membudget.within(processes, lambda: call(256), 64 * MIB)  # it fails under the limit, then runs
    assert resource.prlimit(proc.pid, resource.RLIMIT_AS) == before  # put back after each call


def test_an_error_of_the_call_itself_is_raised(child):
    proc, _ = child

    def broken() -> None:
        raise NotImplementedError("the learner's stub")

    with pytest.raises(NotImplementedError):
        membudget.within(membudget.KernelProcesses(root_pid=proc.pid), broken, 64 * MIB)


def test_a_process_that_raises_its_own_limit_is_over_budget(child):
    proc, call = child

    def raise_then_call() -> None:  # what a learner's code could do to its own soft limit (as its own user)
        soft, hard = resource.prlimit(proc.pid, resource.RLIMIT_AS)
        resource.prlimit(proc.pid, resource.RLIMIT_AS, (hard, hard))
        call(1)

    if membudget.can_raise_hard_limits():  # the hard limit is lowered too: the call's process cannot raise it
        assert membudget.within(membudget.KernelProcesses(root_pid=proc.pid), lambda: call(1), 64 * MIB)
    else:
        assert not membudget.within(membudget.KernelProcesses(root_pid=proc.pid), raise_then_call, 64 * MIB)


@pytest.mark.skipif(os.geteuid() != 0 or not (V1_MEMORY / "cgroup.procs").exists(), reason="needs root and cgroup v1")
def test_the_memory_cgroup_high_water_mark_measures_a_call(child):
    proc, call = child
    group = V1_MEMORY / f"wb-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        (group / "cgroup.procs").write_text(str(proc.pid))
        processes = membudget.KernelProcesses(memory_group=group)
        call(256)  # a peak before the measured call counts for nothing
        assert membudget.within(processes, lambda: call(8), 64 * MIB)
        assert not membudget.within(processes, lambda: call(256), 64 * MIB)
        assert resource.prlimit(proc.pid, resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY  # no limit was set
    finally:
        proc.kill()
        proc.wait()
        group.rmdir()


def test_the_kernel_manager_names_the_processes():
    class Provisioner:
        pid = os.getpid()

    class Manager:  # the unsafe mode's manager: no sandbox job, the kernel's own process
        provisioner = Provisioner()

    budget = membudget.for_kernel(Manager())
    assert budget(lambda: None, 64 * MIB)
    assert os.getpid() in membudget.KernelProcesses(root_pid=os.getpid()).pids()


def test_a_watch_reads_each_pids_uid_once_and_still_sees_a_process_born_during_it(monkeypatch):
    """PrivateWatch scans /proc every 4 ms: a pid's uid is read once per watch, and a new process is read."""
    reads: list[str] = []
    read_text = Path.read_text

    def counted(self, *args, **kwargs):
        if self.name == "status":
            reads.append(self.parent.name)
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    uids: dict[int, int] = {}
    first = membudget._processes(uids)
    assert (os.getpid(), os.getuid()) in first and str(os.getpid()) in reads
    before = len(reads)
    again = membudget._processes(uids)
    assert (os.getpid(), os.getuid()) in again and str(os.getpid()) not in reads[before:]  # known: not read again
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        mine = membudget.KernelProcesses(uid=os.getuid()).pids(uids)
        assert child.pid in mine and str(child.pid) in reads[before:]  # born after the first scan: read
    finally:
        child.kill()
        child.wait()
    assert child.pid not in membudget.KernelProcesses(uid=os.getuid()).pids(uids)  # gone from /proc: gone
    assert child.pid not in uids  # and forgotten: a pid reused later (a fork loop wrapping pid_max) is read again
