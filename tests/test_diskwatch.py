"""The job's disk quota: what it counts, and that it kills once over."""

from __future__ import annotations

import os
import subprocess
import time

from autograder.kernel import diskwatch


def test_usage_counts_real_blocks_at_any_depth(tmp_path):
    deep = tmp_path
    for _ in range(1200):  # deeper than Python's recursion limit
        deep = deep / "d"
        os.mkdir(deep)
    (deep / "data.bin").write_bytes(b"x" * 2**20)
    with open(tmp_path / "sparse.bin", "wb") as fh:  # 100 GB apparent, nothing allocated
        fh.truncate(100 * 2**30)
    os.symlink("/usr", tmp_path / "link")  # never followed
    try:
        used = diskwatch.usage([tmp_path])
    finally:  # pytest's own clean-up of old temporary folders recurses: leave nothing this deep
        subprocess.run(["rm", "-rf", str(tmp_path / "d")], check=True)
    assert 2**20 <= used < 2**20 + 8 * 2**20


def test_too_many_names_count_as_over(tmp_path, monkeypatch):
    monkeypatch.setattr(diskwatch, "MAX_ENTRIES", 50)
    for i in range(60):
        (tmp_path / str(i)).touch()
    assert diskwatch.usage([tmp_path]) > 2**40


def test_the_watch_kills_once_over(tmp_path):
    killed = []
    with diskwatch.DiskWatch([tmp_path], quota=2**20, kill=lambda: killed.append(1), every=0.05) as watch:
        (tmp_path / "big.bin").write_bytes(b"x" * 2 * 2**20)
        for _ in range(100):
            if killed:
                break
            time.sleep(0.05)
    assert watch.exceeded and killed == [1]
