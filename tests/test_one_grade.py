"""One grade everywhere: a late learner with an override and a hand grade gets the same grade in
grades.csv, lms.csv, canvas.csv, moodle.csv, nbgrader's own `nbgrader export`, formgrader's API
(score before the penalty, the due date and the submission time) and the feedback page."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import urllib.request

import nbformat
import pytest
from conftest import ROOT, grade_options
from support import make_submission
from test_formgrader import _formgrader

from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.run import grade

pytestmark = pytest.mark.slow

NB01 = "01_scaled_dot_product_attention"
POLICY = f"""
[due]
{NB01} = "2026-12-01T23:59:00+00:00"
[extensions.bo]
all_hours = 48
[policy]
per_day = 10
max = 50
"""
ROSTER = (
    "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section\n"
    "ann,Ann Lovelace,ann@example.edu,1234,S001,alovelace,88,alovelace,A\n"
    "bo,Bo Chen,bo@example.edu,1240,S002,bchen,89,bchen,B\n"
)
HANDED_IN = "2026-12-03 08:00:00.000000 UTC"  # ann: 32 hours late (2 days started); bo: within his extension


def _mark(out, *args: str) -> None:
    run = subprocess.run([sys.executable, "-m", "autograder", "mark", str(out), *args], cwd=ROOT, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()[-2000:]


def _rows(path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """ann and bo graded under the policy; then ann's written answer scored by hand and one test overridden."""
    tmp = tmp_path_factory.mktemp("onegrade")
    for student in ("ann", "bo"):
        nb = make_submission(NB01, None)
        for cell in (c for c in nb.cells if answers.is_written(c)):
            cell.source = "The scores grow with the key size, so the softmax saturates."
        (tmp / "subs" / student).mkdir(parents=True)
        nbformat.write(nb, tmp / "subs" / student / f"{NB01}.ipynb")
        (tmp / "subs" / student / "timestamp.txt").write_text(HANDED_IN + "\n")
    (tmp / "late.toml").write_text(POLICY)
    (tmp / "roster.csv").write_text(ROSTER)
    opts = grade_options(
        submissions=tmp / "subs",
        out=tmp / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
        late=tmp / "late.toml",
        roster=tmp / "roster.csv",
    )
    first = {r.student_id: r for r in grade.grade(opts)}["ann"]
    written = next(t for t in first.tests if t.manual)
    overridden = next(t for t in first.tests if not t.manual and t.score > 0)
    _mark(opts.out, "ann", NB01, written.name, str(written.max_score / 2))
    _mark(opts.out, "ann", NB01, overridden.name, "0")
    results = json.loads((opts.out / "results.json").read_text())
    ann = next(r for r in results["submissions"] if r["student_id"] == "ann")
    return opts.out, ann, written, overridden


def test_the_reports_carry_one_grade_after_the_penalty(graded):
    out, ann, written, overridden = graded
    raw = ann["score"] + ann["penalty"]
    assert ann["penalty"] == pytest.approx(0.2 * ann["max_score"]) and ann["penalty"] > 0
    by_test = {t["name"]: t["score"] for t in ann["tests"]}
    assert by_test[written.name] == written.max_score / 2 and by_test[overridden.name] == 0  # both decisions in
    assert raw == pytest.approx(sum(by_test.values()))
    [row] = [r for r in _rows(out / "grades.csv") if r["student_id"] == "ann" and r["notebook"] == NB01]
    assert float(row["score"]) == pytest.approx(ann["score"]) and float(row["raw_score"]) == pytest.approx(raw)
    assert float(row["late_submission_penalty"]) == pytest.approx(ann["penalty"])
    [lms] = [r for r in _rows(out / "lms.csv") if r["student_id"] == "ann"]
    [canvas] = [r for r in _rows(out / "canvas.csv") if r["ID"] == "1234"]
    [moodle] = [r for r in _rows(out / "moodle.csv") if r["Email address"] == "ann@example.edu"]
    assert float(lms[NB01]) == float(canvas[NB01]) == float(moodle[NB01]) == pytest.approx(ann["score"])


def test_nbgraders_own_export_gives_the_same_grade(graded):
    out, ann, _, _ = graded
    to = out.parent / "nbgrader_export.csv"
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--to", str(to)], cwd=out / ".course", capture_output=True
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    rows = {r["student_id"]: r for r in _rows(to) if r["assignment"] == NB01}
    assert float(rows["ann"]["score"]) == pytest.approx(ann["score"])
    assert float(rows["ann"]["late_submission_penalty"]) == pytest.approx(ann["penalty"])
    assert rows["ann"]["duedate"].startswith("2026-12-01 23:59:00") and rows["ann"]["timestamp"].startswith(
        "2026-12-03 08:00:00"
    )
    assert float(rows["bo"]["late_submission_penalty"] or 0) == 0  # his extension covers it


def test_formgrader_shows_the_due_date_the_time_and_the_score_before_the_penalty(graded):
    out, ann, _, _ = graded
    with _formgrader(out) as (_proc, base, token):

        def api(path: str):
            return json.loads(urllib.request.urlopen(f"{base}/formgrader/api/{path}?token={token}", timeout=30).read())

        assignment = api(f"assignment/{NB01}")
        submission = api(f"submission/{NB01}/ann")
        extended = api(f"submission/{NB01}/bo")
    assert assignment["duedate"].startswith("2026-12-01T23:59:00")
    assert submission["autograded"] and submission["timestamp"].startswith("2026-12-03T08:00:00")
    assert submission["score"] == pytest.approx(ann["score"] + ann["penalty"])  # nbgrader's raw score
    assert extended["autograded"] and extended["score"] > 0


def test_the_feedback_page_header_and_body_agree(graded):
    out, ann, _, _ = graded
    page = (out / "feedback" / "ann" / f"{NB01}.html").read_text(encoding="utf-8")
    penalty = re.search(r"Late submission penalty \(Score: -([\d.]+)\)", page)
    assert penalty and float(penalty.group(1)) == pytest.approx(round(ann["penalty"], 2))
    grade_line = re.search(r"Grade: ([\d.]+) / ([\d.]+)", page)
    assert grade_line and float(grade_line.group(1)) == pytest.approx(ann["score"])
    score = re.search(r"Score: ([\d.]+) / ([\d.]+)", page)  # nbgrader's header: its total, the penalty taken
    assert score and float(score.group(1)) == pytest.approx(ann["score"])
    bo = (out / "feedback" / "bo" / f"{NB01}.html").read_text(encoding="utf-8")
    assert "Late submission penalty" not in bo
