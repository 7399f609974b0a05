"""Resource limits for running a learner's notebook."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-cell and per-notebook time, memory, processes and output size."""

    cell_seconds: int = 60
    notebook_seconds: int = 240
    memory_bytes: int = 6 * 2**30
    processes: int = 256
    output_bytes: int = 2 * 2**20
