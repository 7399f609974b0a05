"""Grading where the user namespace maps only uids 0-65535 (a Kubernetes pod with `hostUsers: false`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, SANDBOX_PROBLEM
from support import make_submission

from autograder.run import runlock

NB01 = "01_scaled_dot_product_attention"
USERNS = Path(__file__).with_name("userns.py")


def _in_namespace(*cmd: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(USERNS), *cmd], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def _problem() -> str | None:
    if os.geteuid() != 0:
        return "needs root on the host to write a new namespace's uid map"
    if SANDBOX_PROBLEM:
        return SANDBOX_PROBLEM
    probe = _in_namespace("cat", "/proc/self/uid_map", timeout=30)
    return None if probe.returncode == 0 else f"no user namespace here: {probe.stderr.strip()[:200]}"


def test_blocks_fit_the_namespace_they_are_taken_in():
    assert runlock.uid_layout([(0, 2**32 - 1)]) == (runlock.FIRST_UID, runlock.BLOCKS)
    first, blocks = runlock.uid_layout([(0, 65536)])  # hostUsers: false
    assert blocks >= 8 and runlock.LOW_UID <= first and first + blocks * runlock.BLOCK <= 65534
    uids = {runlock.job_uid(first + b * runlock.BLOCK, slot) for b in range(blocks) for slot in range(2000)}
    assert max(uids) < 65534 and runlock.SANDBOX_UID not in uids
    assert runlock.uid_layout([(0, 1)]) == (0, 0)  # one uid: no block (the rootless sandbox is the way)


@pytest.mark.slow
def test_grading_in_a_namespace_that_maps_only_0_to_65535(tmp_path):
    problem = _problem()
    if problem:
        pytest.skip(problem)
    assert _in_namespace("cat", "/proc/self/uid_map").stdout.split() == ["0", "0", "65536"]
    subs, out = tmp_path / "subs", tmp_path / "out"
    (subs / "ann").mkdir(parents=True)
    nbformat.write(make_submission(NB01, None), subs / "ann" / f"{NB01}.ipynb")
    env_cmd = ["env", f"AUTOGRADER_LOCK_DIR={tmp_path / 'locks'}", "OMP_NUM_THREADS=1"]
    cmd = [*env_cmd, sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(out), "--jobs", "1"]
    run = _in_namespace(*cmd)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "sandbox: forkserver" in run.stderr or "sandbox: bwrap" in run.stderr, run.stderr[-1000:]
    (row,) = json.loads((out / "results.json").read_text())["submissions"]
    assert row["status"] == "graded" and row["errors"] == [], row["errors"]
    assert row["score"] == sum(t["max_score"] for t in row["tests"] if not t.get("manual")) > 0
    locks = sorted(p.name for p in (tmp_path / "locks").iterdir())
    assert locks == [f"uids-{runlock.uid_layout([(0, 65536)])[0]}-0.lock"], locks
