"""Ctrl-C during a real grade run: out within 5 s, one line saying how to resume, and the next run resumes."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time

import nbformat
import pytest
from conftest import ROOT, SANDBOX_PROBLEM
from support import make_submission

from autograder.run import interrupt

pytestmark = pytest.mark.slow
NB = "01_scaled_dot_product_attention"  # the cheapest notebook: the run is stopped after the first


def test_ctrl_c_stops_within_five_seconds_with_one_line_and_the_run_resumes(tmp_path):
    for student in ("ann", "bo", "cy", "di"):
        (tmp_path / "subs" / student).mkdir(parents=True)
        nbformat.write(make_submission(NB, None), tmp_path / "subs" / student / f"{NB}.ipynb")
    command = [sys.executable, "-m", "autograder", "grade", str(tmp_path / "subs"), "--out", str(tmp_path / "out")]
    command += ["--jobs", "1", "--quiet"] + (["--unsafe"] if SANDBOX_PROBLEM else [])
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    deadline = time.monotonic() + 300
    while not list((tmp_path / "out" / ".state").glob("*/*.json")):  # a notebook is done: mid-run
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else "slow"
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole foreground group
    t0 = time.monotonic()
    proc.wait(timeout=60)  # the grader itself (the shell's prompt is back)
    took = time.monotonic() - t0
    _, err = proc.communicate(timeout=60)  # what it and anything it started wrote
    assert took < 5, f"{took:.1f} s to stop"
    assert proc.returncode == 130
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("WARNING: --unsafe")]
    assert interrupt.MESSAGE in lines and "Traceback" not in err, err[-3000:]
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    rows = list(csv.DictReader((tmp_path / "out" / "grades.csv").open()))
    assert sorted(r["student_id"] for r in rows) == ["ann", "bo", "cy", "di"]
    assert all(r["status"] == "graded" for r in rows), [(r["student_id"], r["status"], r["reason"][:300]) for r in rows]


FINALISER = """
import os, signal, sys, time, weakref
sys.path.insert(0, {root!r})
from autograder.run import interrupt

interrupt.install()


class Row:
    pass


def finaliser(_ref):
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives while a weakref callback runs (as SQLAlchemy's do)
    for _ in range(10**7):  # the handler runs here, inside the callback: its KeyboardInterrupt cannot propagate
        pass


row = Row()
ref = weakref.ref(row, finaliser)
del row
time.sleep(30)
"""


def test_ctrl_c_inside_a_finaliser_prints_one_line_and_no_traceback(tmp_path):
    """The run's one line and exit 130 within the grace period, not Python's 'Exception ignored' traceback."""
    script = tmp_path / "finaliser.py"
    script.write_text(FINALISER.format(root=str(ROOT)))
    t0 = time.monotonic()
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 130 and time.monotonic() - t0 < 15, (run.returncode, run.stderr)
    assert run.stderr.strip() == interrupt.MESSAGE, run.stderr
