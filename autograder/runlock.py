"""Runs that share a machine: one run per results folder, and a uid range of its own per run.

RLIMIT_NPROC counts processes per uid across the whole host, so two runs whose kernels
used the same uids would limit each other. Each run takes a block of uids under a
host-wide lock (a file lock in LOCK_DIR, released when the run's process ends, even
when it is killed), and a second run on the same results folder is refused while the
first one lives.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

FIRST_UID = 100_000
BLOCK = 1_000
BLOCKS = 64
_USER = "" if os.geteuid() == 0 else f"-{os.geteuid()}"  # root's runs share one; a user's are their own
LOCK_DIR = Path(os.environ.get("AUTOGRADER_LOCK_DIR", Path(tempfile.gettempdir()) / f"autograder-locks{_USER}"))


class RunBusy(RuntimeError):
    """Another grading run holds what this one needs."""


def _try_lock(path: Path):
    """An open file holding an exclusive lock on `path`, or None if another process holds it."""
    fh = open(path, "a+")  # noqa: SIM115 - the lock lives as long as the file stays open
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    return fh


@contextlib.contextmanager
def results_folder(out: Path) -> Iterator[None]:
    """Hold RESULTS for this run; refuse if another live run holds it."""
    out.mkdir(parents=True, exist_ok=True)
    lock = out / ".grade.lock"
    fh = _try_lock(lock)
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
    LOCK_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    for index in range(BLOCKS):
        fh = _try_lock(LOCK_DIR / f"uids-{index}.lock")
        if fh is not None:
            try:
                yield FIRST_UID + index * BLOCK
            finally:
                fh.close()
            return
    raise RunBusy(f"{BLOCKS} grading runs are already running on this machine")


def job_uid(base: int, slot: int) -> int:
    """The uid of the job in `slot`: inside this run's block, never its first uid."""
    return base + 1 + slot % (BLOCK - 1)
