"""Runs that share a machine: one live run per results folder, a uid block of its own per run."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

from autograder import runlock

HOLD = """
import sys, time
sys.path.insert(0, {root!r})
from autograder import runlock
from pathlib import Path
with runlock.results_folder(Path({out!r})), runlock.uid_block() as base:
    print(base, flush=True)
    time.sleep(60)
"""


@pytest.fixture
def other_run(tmp_path):
    """Another process that holds a results folder and a uid block, as a live `grade` run does."""
    out = tmp_path / "results"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(root=str(ROOT), out=str(out))], stdout=subprocess.PIPE, text=True
    )
    base = int(proc.stdout.readline())
    yield out, base
    proc.kill()
    proc.wait()


def test_a_second_run_on_the_same_results_folder_is_refused(other_run, tmp_path):
    out, _ = other_run
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(tmp_path), "--out", str(out), "--jobs", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2
    assert "another grade run" in run.stderr and str(out) in run.stderr


def test_two_runs_get_different_uids(other_run):
    _, theirs = other_run
    with runlock.uid_block() as mine:
        assert mine != theirs
        mine_uids = {runlock.job_uid(mine, slot) for slot in range(2000)}
        their_uids = {runlock.job_uid(theirs, slot) for slot in range(2000)}
        assert not mine_uids & their_uids


def test_the_folder_is_free_again_when_the_run_ends(tmp_path):
    with runlock.results_folder(tmp_path):
        pass
    with runlock.results_folder(tmp_path):  # a finished (or killed) run leaves no lock behind
        pass
