"""Written answers, graded by a person through real nbgrader: pending after `grade`, scored in the gradebook, exported."""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder import paths
from autograder.gradebook.course import COURSE_ID
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import GRADED_BY_HAND, NEEDS_MANUAL
from autograder.run import grade

pytestmark = pytest.mark.slow
NB03 = "03_multi_head_attention"
ANSWER = "Same parameters and multiply-adds; the weights' memory grows four times; each head gets narrower."


def written_ids(name: str) -> list[str]:
    return answers.written_ids(nbformat.read(paths.source_notebook(name), as_version=4))


def written_points(name: str, gid: str) -> float:
    """The points a written question is out of, as its cell's nbgrader metadata says."""
    cells = nbformat.read(paths.source_notebook(name), as_version=4).cells
    return float(next(c for c in cells if answers.grade_id(c) == gid).metadata.nbgrader["points"])


def test_the_course_asks_at_least_five_written_questions_with_points_and_a_rubric():
    found = {}
    for name in paths.notebook_names():
        for cell in nbformat.read(paths.source_notebook(name), as_version=4).cells:
            if answers.is_written(cell):
                found[answers.grade_id(cell)] = cell
    assert len(found) >= 5, sorted(found)
    for gid, cell in found.items():
        assert cell.metadata.nbgrader["points"] > 0, gid
        assert "**Rubric" in cell.source and "### BEGIN SOLUTION" in cell.source, f"{gid}: no rubric in the source"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One learner's notebook 03 (reference code, one written answer) graded once."""
    tmp = tmp_path_factory.mktemp("manual")
    nb = make_submission(NB03, None)
    for cell in nb.cells:
        if answers.is_written(cell):
            cell.source = ANSWER
    (tmp / "subs" / "wes").mkdir(parents=True)
    nbformat.write(nb, tmp / "subs" / "wes" / f"{NB03}.ipynb")
    opts = grade_options(
        submissions=tmp / "subs",
        out=tmp / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
    )
    (result,) = grade.grade(opts)
    return opts, result


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_grade_reports_each_written_answer_as_needing_manual_grading(graded):
    opts, result = graded
    [gid] = written_ids(NB03)
    written = {t.name: t for t in result.tests}[gid]
    assert (written.status, written.score, written.manual) == (NEEDS_MANUAL, 0.0, True)
    automatic = [t for t in result.tests if not t.manual]
    assert all(t.status == "passed" for t in automatic), [(t.name, t.message) for t in automatic]
    assert result.score == result.max_score - written.max_score
    [row] = _rows(opts.out / "grades.csv")
    assert row["needs_manual_grading"] == gid
    saved = json.loads((opts.out / "results.json").read_text())["submissions"][0]
    assert {t["name"]: t["status"] for t in saved["tests"]}[gid] == NEEDS_MANUAL
    page = (opts.out / "feedback" / "wes" / f"{NB03}.html").read_text()
    assert NEEDS_MANUAL in page and ANSWER.split(";")[0] in page


def test_a_score_entered_in_nbgrader_reaches_every_export_and_survives_a_rerun(graded):
    opts, result = graded
    [gid] = written_ids(NB03)
    with Gradebook(f"sqlite:///{opts.out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:  # as formgrader does
        gb.find_grade(gid, NB03, NB03, "wes").manual_score = 1.5
        gb.find_grade(gid, NB03, NB03, "wes").extra_credit = 0.5  # formgrader's "extra credit" field
        gb.db.commit()
    run = _cli("export", str(opts.out))
    assert run.returncode == 0, run.stderr
    total = result.score + 1.5 + 0.5  # as nbgrader's own total counts it
    [row] = _rows(opts.out / "grades.csv")
    assert (float(row["score"]), row["needs_manual_grading"]) == (total, "")
    [lms] = _rows(opts.out / "lms.csv")
    assert float(lms[NB03]) == total and float(lms["total"]) == total
    saved = json.loads((opts.out / "results.json").read_text())["submissions"][0]
    assert {t["name"]: (t["status"], t["score"]) for t in saved["tests"]}[gid] == (GRADED_BY_HAND, 1.5)
    (again,) = grade.grade(opts)  # nothing changed: nothing re-run, and the person's score stays
    assert again.score == total
    with Gradebook(f"sqlite:///{opts.out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:
        assert gb.find_grade(gid, NB03, NB03, "wes").manual_score == 1.5


def test_mark_scores_a_written_answer_and_refuses_an_unknown_one(graded):
    opts, result = graded
    [gid] = written_ids(NB03)
    full = written_points(NB03, gid)
    run = _cli("mark", str(opts.out), "wes", NB03, gid, f"{full:g}", "--comment", "Precise: all three counts.")
    assert run.returncode == 0, run.stderr
    assert float(_rows(opts.out / "grades.csv")[0]["score"]) == result.max_score + 0.5  # the extra credit stays
    with Gradebook(f"sqlite:///{opts.out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:  # done, for formgrader too
        assert gb.find_grade(gid, NB03, NB03, "wes").needs_manual_grade is False
    page = (opts.out / "feedback" / "wes" / f"{NB03}.html").read_text()
    assert "Precise: all three counts." in page and GRADED_BY_HAND in page
    too_many = _cli("mark", str(opts.out), "wes", NB03, gid, "9")
    assert too_many.returncode == 2 and f"outside 0..{full:g}" in too_many.stderr
    unknown = _cli("mark", str(opts.out), "wes", NB03, "no_such_answer", "1")  # a test's override: test_regrades
    assert unknown.returncode == 2 and "no graded answer" in unknown.stderr


@pytest.mark.browser
def test_formgrader_shows_the_written_answers_in_a_real_browser(graded, tmp_path):
    """nbgrader's formgrader, on the results folder's own course and gradebook, opened in headless Chromium."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    opts, _ = graded
    course = opts.out / ".course"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        submission = gb.find_submission_notebook(NB03, NB03, "wes").id
    with formgrader(course) as url:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"{url}/formgrader/submissions/{submission}/?token={TOKEN}")
            [gid] = written_ids(NB03)
            cell = page.locator(".nbgrader_cell", has_text=ANSWER.split(";")[0])
            cell.first.wait_for(timeout=60_000)
            text = cell.first.inner_text()
            page.screenshot(path=str(tmp_path / "formgrader.png"))
            browser.close()
    assert "Student's answer" in text and "Full credit" in text, text[:500]  # formgrader's grading controls
    full = written_points(NB03, gid)
    assert f"/ {full:.1f}" in text, f"{gid} should be out of its {full:g} points: {text[:500]}"


TOKEN = "formgrader-test-token"


@contextlib.contextmanager
def formgrader(course: Path):
    """A Jupyter server with nbgrader's formgrader, run in the course folder (its nbgrader_config.py)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={port}", "--ip=127.0.0.1"]
    command += [f"--ServerApp.token={TOKEN}", "--allow-root"]
    command += ["--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}"]
    proc = subprocess.Popen(command, cwd=course, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the Jupyter server with formgrader did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
