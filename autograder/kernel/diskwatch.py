"""A disk quota for one job: its work and exchange folders together, watched while it runs.

RLIMIT_FSIZE bounds one file; this bounds them all. A thread sums the folders' sizes
every half second (iteratively: any depth, any number of names, links not followed) and,
once they hold more than the quota, kills the job's kernel.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

MAX_ENTRIES = 200_000  # more names than this counts as over the quota


def usage(folders: list[Path]) -> int:
    """Bytes allocated under the folders (sparse files count what they really use)."""
    total, seen, stack = 0, 0, [str(f) for f in folders]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return 2**62
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_blocks * 512
        except OSError:
            continue
    return total


class DiskWatch:
    """Context manager: while inside, `kill()` is called once if the folders outgrow `quota` bytes."""

    def __init__(self, folders: list[Path], quota: int, kill: Callable[[], object], every: float = 0.5) -> None:
        self.folders, self.quota, self.kill, self.every = folders, quota, kill, every
        self.exceeded = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            if usage(self.folders) > self.quota:
                self.exceeded = True
                self.kill()
                return

    def __enter__(self) -> DiskWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
