"""Nothing lost: a grading run killed with SIGKILL and run again finishes, loses and doubles nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from conftest import ROOT, SANDBOX_PROBLEM, run_grade
from support import catalogue_entries, make_submission

NB01 = "01_scaled_dot_product_attention"
pytestmark = pytest.mark.slow


def _class(folder, n=4):
    wrong = [p for p in catalogue_entries(NB01) if p.name.startswith("wrong_")]
    entries = [None] + wrong[: n - 1]
    for i, entry in enumerate(entries):
        (folder / f"s{i}").mkdir(parents=True)
        nbformat.write(make_submission(NB01, entry), folder / f"s{i}" / f"{NB01}.ipynb")


def _grade_cmd(subs, out):
    cmd = [sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(out), "--jobs", "1", "--quiet"]
    return cmd + (["--unsafe"] if SANDBOX_PROBLEM else [])


def _kernels_under(out) -> list[int]:
    """Processes still running whose command line names the results folder (kernels and their sandboxes)."""
    found = []
    for proc in os.listdir("/proc"):
        try:
            with open(f"/proc/{proc}/cmdline", "rb") as fh:
                if str(out).encode() in fh.read():
                    found.append(int(proc))
        except (OSError, ValueError):
            continue
    return found


def test_kill_and_resume(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    _class(subs)
    proc = subprocess.Popen(
        _grade_cmd(subs, out), cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 300
    while time.time() < deadline and len(list((out / ".state").glob("*/*.json"))) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # a job writes its executed notebook once; recording it in the gradebook later does not
    done = {p: p.stat().st_mtime_ns for p in (out / ".state").glob("*/*.ipynb")}
    assert 1 <= len(done) < 4, "the kill should land mid-run"
    subprocess.run(_grade_cmd(subs, out), cwd=ROOT, check=True, capture_output=True)
    assert _kernels_under(out) == [], "a kernel of the killed run is still running"
    for path, mtime in done.items():
        assert path.stat().st_mtime_ns == mtime, f"{path.parent.name}/{path.name} was executed twice"
    data = json.loads((out / "results.json").read_text())
    keys = [(s["student_id"], s["notebook"]) for s in data["submissions"]]
    assert sorted(keys) == sorted({(f"s{i}", NB01) for i in range(4)})
    scores = {s["student_id"]: s["score"] for s in data["submissions"]}
    reference = next(s for s in data["submissions"] if s["student_id"] == "s0")
    assert scores["s0"] == sum(t["max_score"] for t in reference["tests"] if not t["manual"]) > 0


def test_regrading_one_student_replaces_only_their_rows(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    _class(subs, n=2)
    before = run_grade(subs, out)
    only = tmp_path / "only"
    (only / "s1").mkdir(parents=True)
    nbformat.write(make_submission(NB01, None), only / "s1" / f"{NB01}.ipynb")  # s1 fixed their bug
    after = run_grade(only, out)
    assert after[f"s1/{NB01}"].score == after[f"s1/{NB01}"].auto_max > before[f"s1/{NB01}"].score
    assert after[f"s0/{NB01}"].to_dict() == before[f"s0/{NB01}"].to_dict()
    rows = (out / "grades.csv").read_text().splitlines()[1:]
    assert len(rows) == 2
