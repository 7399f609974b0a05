"""Resource limits for running a learner's notebook."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Per-cell and per-notebook time, memory, processes, output, file size and CPU share."""

    cell_seconds: int = 60
    notebook_seconds: int = 240
    memory_bytes: int = 6 * 2**30
    processes: int = 256
    output_bytes: int = 2 * 2**20
    file_bytes: int = 512 * 2**20  # RLIMIT_FSIZE: the largest file a kernel may write
    disk_bytes: int = 2**30  # everything in the job's work and exchange folders together
    cpus: float = 1.0  # CPU quota of one job (a cgroup), so that a neighbour keeps its share
