"""The grader's own memory while one job's checks run: bounded, so a learner's claims cannot spend it.

A check computes with what the learner's kernel sends (bounded by `autograder.kernel.wire`) and with
what it asks of the learner's objects (a shape, a size, a count: numbers the learner's code chooses).
While the checks of one job run, the worker's private data may grow `HEADROOM` past what it held
when they began (RLIMIT_DATA, soft limit): an allocation past that fails in the check that made it
(a MemoryError or PyTorch's "can't allocate memory", that check's failure), never the host or the
other jobs. The limit is lifted again before the next job starts its kernel, which must not inherit
it. Not set where CUDA is in use: the driver maps private memory of its own that it would count.
"""

from __future__ import annotations

import contextlib
import resource
from collections.abc import Iterator
from pathlib import Path

HEADROOM = 2 * 2**30
"""How far the checks of one job may grow the worker's private data (every reference passes with a quarter)."""


def private_data() -> int:
    """This process's private data now (VmData, bytes): what RLIMIT_DATA counts."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) * 1024
    raise OSError("no VmData in /proc/self/status")


def _cuda_in_use() -> bool:
    import sys

    torch = sys.modules.get("torch")
    return torch is not None and torch.cuda.is_available()


@contextlib.contextmanager
def bounded(headroom: int = HEADROOM) -> Iterator[int | None]:
    """Within the block the process's private data may not grow more than `headroom`; the limit it allows, or None."""
    if _cuda_in_use():
        yield None
        return
    before = resource.getrlimit(resource.RLIMIT_DATA)
    soft, hard = before
    limit = private_data() + headroom
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    try:
        yield limit
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, before)
