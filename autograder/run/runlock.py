"""Runs that share a machine: one run per results folder, and a uid range of its own per run.

RLIMIT_NPROC counts processes per uid across the whole host, so two runs whose kernels
used the same uids would limit each other. Each run takes a block of uids under a
machine-wide lock (a file lock in LOCK_DIR, released when the run's process ends, even
when it is killed), and a second run on the same results folder is refused while the
first one lives.

LOCK_DIR is /run/lock/autograder (per machine: a job's own TMPDIR or private /tmp, as
Slurm and pods give, does not change it), /tmp/autograder-locks where /run/lock is
missing, or AUTOGRADER_LOCK_DIR. The blocks lie where this process's user namespace maps
uids (/proc/self/uid_map): from uid 100,000 on a host, inside 10,000-59,999 in a pod
whose namespace maps only 0-65535 (Kubernetes `hostUsers: false`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from autograder.kernel.sandbox import SANDBOX_UID  # the fixed uid of the modes without blocks: never in one
from autograder.results_folder import ResultsFolder

FIRST_UID = 100_000
BLOCK = 1_000
BLOCKS = 64
LOW_UID = 10_000  # below: the accounts of the system and its users
_USER = "" if os.geteuid() == 0 else f"-{os.geteuid()}"  # root's runs share one; a user's are their own


def default_lock_dir(environ=os.environ) -> Path:
    """The machine's lock folder: AUTOGRADER_LOCK_DIR, else /run/lock, else /tmp (never $TMPDIR)."""
    if environ.get("AUTOGRADER_LOCK_DIR"):
        return Path(environ["AUTOGRADER_LOCK_DIR"])
    run_lock = Path("/run/lock")
    if run_lock.is_dir() and os.access(run_lock, os.W_OK | os.X_OK):
        return run_lock / f"autograder{_USER}"
    return Path("/tmp") / f"autograder-locks{_USER}"


LOCK_DIR = default_lock_dir()


def mapped_uids(uid_map: str = "/proc/self/uid_map") -> list[tuple[int, int]]:
    """The uid ranges this user namespace maps, as (first, count) inside it."""
    try:
        lines = Path(uid_map).read_text().splitlines()
    except OSError:
        return [(0, 2**32 - 1)]  # no such file: no user namespaces, every uid exists
    ranges = []
    for line in lines:
        inside, _outside, count = (int(x) for x in line.split())
        ranges.append((inside, count))
    return ranges


def uid_layout(ranges: list[tuple[int, int]]) -> tuple[int, int]:
    """(first uid, number of blocks): FIRST_UID.. where mapped, else the widest mapped stretch above LOW_UID."""
    if any(lo <= FIRST_UID and FIRST_UID + BLOCK * BLOCKS <= lo + n for lo, n in ranges):
        return FIRST_UID, BLOCKS
    best = (0, 0)
    for lo, n in ranges:
        start, stop = max(lo, LOW_UID), lo + n - 2  # leave the top ones (nobody: 65534)
        if start < SANDBOX_UID < stop:  # keep clear of the fixed sandbox uid: the wider side
            start, stop = max((start, SANDBOX_UID), (SANDBOX_UID + 1, stop), key=lambda r: r[1] - r[0])
        blocks = max(0, min(BLOCKS, (stop - start) // BLOCK))
        best = max(best, (blocks, start), key=lambda b: b[0])
    return best[1], best[0]


class RunBusy(RuntimeError):
    """Another grading run holds what this one needs."""


def try_lock(path: Path):
    """An open file holding an exclusive lock on `path`, or None if another process holds it."""
    fh = open(path, "a+")  # noqa: SIM115 - the lock lives as long as the file stays open
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    return fh


@contextlib.contextmanager
def results_folder(folder: ResultsFolder) -> Iterator[None]:
    """Hold RESULTS for this run; refuse if another live run holds it."""
    out = folder.root
    out.mkdir(parents=True, exist_ok=True)
    lock = folder.lock_file
    fh = try_lock(lock)
    if fh is None:
        owner = lock.read_text().strip() or "another process"
        raise RunBusy(f"another grade run ({owner}) is using {out}; wait for it to finish, or use another --out")
    try:
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        yield
    finally:
        fh.close()


@contextlib.contextmanager
def uid_block() -> Iterator[int]:
    """The first uid of a block of BLOCK uids no other live run on this machine uses."""
    first, blocks = uid_layout(mapped_uids())
    if blocks == 0:
        raise RunBusy(
            f"this user namespace maps too few uids for a block of {BLOCK} ({mapped_uids()}): "
            "grade as an ordinary user (the rootless sandbox), or map more uids"
        )
    LOCK_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    for index in range(blocks):
        fh = try_lock(LOCK_DIR / f"uids-{first}-{index}.lock")
        if fh is not None:
            try:
                yield first + index * BLOCK
            finally:
                fh.close()
            return
    raise RunBusy(f"{blocks} grading runs are already running on this machine")


def job_uid(base: int, slot: int) -> int:
    """The uid of the job in `slot`: inside this run's block, never its first uid."""
    return base + 1 + slot % (BLOCK - 1)
