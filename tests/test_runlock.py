"""Runs that share a machine: one live run per results folder, a uid block of its own per run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from autograder import paths
from autograder.results_folder import ResultsFolder
from autograder.run import runlock

HOLD = """
import sys, time
sys.path.insert(0, {root!r})
from autograder.run import runlock
from autograder import paths
from autograder.results_folder import ResultsFolder
from pathlib import Path
with runlock.results_folder(ResultsFolder(Path({out!r}))), runlock.uid_block() as base:
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
    subs = tmp_path / "subs" / "ann"  # a folder with a submission: refused for the lock, not for the layout
    subs.mkdir(parents=True)
    shutil.copy(paths.DATA / "submissions" / "ada" / "01_scaled_dot_product_attention.ipynb", subs)
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(subs.parent), "--out", str(out), "--jobs", "1"],
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
    with runlock.results_folder(ResultsFolder(tmp_path)):
        pass
    with runlock.results_folder(ResultsFolder(tmp_path)):  # a finished (or killed) run leaves no lock behind
        pass


def test_the_uid_lock_is_per_machine_whatever_tmpdir_says(other_run, tmp_path):
    """Slurm gives each job its own TMPDIR: two runs on one node must still take different blocks."""
    _, theirs = other_run
    own_tmp = tmp_path / "job-tmp"
    own_tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_LOCK_DIR"}
    hold = HOLD.format(root=str(ROOT), out=str(tmp_path / "mine"))
    proc = subprocess.Popen(
        [sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True, env={**env, "TMPDIR": str(own_tmp)}
    )
    try:
        mine = int(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait()
    assert mine != theirs
    assert not any(own_tmp.iterdir())  # nothing of the lock under the job's TMPDIR
    assert runlock.default_lock_dir({"TMPDIR": str(own_tmp)}) == runlock.default_lock_dir({})
    assert runlock.default_lock_dir({"AUTOGRADER_LOCK_DIR": "/srv/locks"}) == Path("/srv/locks")
