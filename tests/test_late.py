"""Late work: due dates, extensions, submission times (timestamp.txt, an LMS's own, timestamps.csv), penalties."""

from __future__ import annotations

import csv
import datetime
import re

import nbformat
import pytest
from conftest import grade_options
from support import make_submission

from autograder import paths
from autograder import results_folder as layout
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.results_folder import ResultsFolder
from autograder.run import grade, late
from autograder.submissions import intake

NB01 = "01_scaled_dot_product_attention"
POLICY = f"""
[due]
{NB01} = "2026-12-01T23:59:00+00:00"
[extensions.bo]
all_hours = 48
[policy]
per_day = 10
max = 50
grace_minutes = 5
"""
KNOWN = {
    n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4))) for n in paths.notebook_names()
}


def _day(hours: float) -> datetime.timedelta:
    return datetime.timedelta(hours=hours)


def test_the_penalty_rule_grace_days_started_cap_and_zero(tmp_path):
    (tmp_path / "late.toml").write_text(POLICY)
    policy = late.load(tmp_path / "late.toml")
    assert policy.penalty(_day(0.05), 10) == 0  # 3 minutes: within the grace
    assert policy.penalty(_day(1), 10) == 1  # a day started: 10%
    assert policy.penalty(_day(25), 10) == 2
    assert policy.penalty(_day(24 * 30), 10) == 5  # capped at 50%
    assert policy.due_for("bo", NB01) - policy.due_for("ann", NB01) == _day(48)
    (tmp_path / "zero.toml").write_text(f'[due]\n{NB01} = "2026-12-01T23:59:00"\n[policy]\nzero = true\n')
    assert late.load(tmp_path / "zero.toml").penalty(_day(1), 10) == 10
    (tmp_path / "bad.toml").write_text(f'[due]\n{NB01} = "next tuesday"\n')
    with pytest.raises(late.LateError, match="not a date and time"):
        late.load(tmp_path / "bad.toml")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (f'[due]\n{NB01[:-1]} = "2026-12-01T23:59:00"\n', f"unknown notebook '{NB01[:-1]}'; did you mean '{NB01}'?"),
        ('[extensions.bo]\n02_mask = "2026-12-01T23:59:00"\n', "unknown notebook '02_mask'; did you mean '02_masks'?"),
        ("[policy]\nper_days = 10\n", "unknown setting in [policy] 'per_days'; did you mean 'per_day'?"),
        ("[dues]\n", "unknown section 'dues'; did you mean 'due'?"),
    ],
)
def test_a_misspelt_notebook_or_setting_is_refused_not_dropped(tmp_path, text, said):
    """A name the course does not know would drop that due date, and its penalties, without a word."""
    (tmp_path / "late.toml").write_text(text)
    late.load(tmp_path / "late.toml")  # read for grading: the check is the grade command's
    with pytest.raises(late.LateError, match=re.escape(said)):
        late.load(tmp_path / "late.toml", paths.notebook_names())


def test_an_extension_for_a_learner_nobody_knows_is_named(tmp_path):
    (tmp_path / "late.toml").write_text(POLICY + "[extensions.fya]\nall_hours = 6\n")
    assert late.unlisted_learners(late.load(tmp_path / "late.toml", paths.notebook_names()), {"bo", "fay"}) == ["fya"]


def test_an_lms_late_mark_is_noted_without_a_policy(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir(), out.mkdir()
    (subs / f"lovelacefay_LATE_1234_99_{NB01}.ipynb").write_text(nbformat.writes(make_submission(NB01, None)))
    items = intake.collect(subs, KNOWN)
    late.record_times(ResultsFolder(out), subs, items)
    [result] = [NotebookResult(student_id=i.student_id, notebook=i.notebook, status="graded", score=9) for i in items]
    late.apply(ResultsFolder(out), [result])
    assert (result.score, result.penalty) == (9, 0) and "marked late by the LMS" in result.late_note


def test_a_blackboard_time_and_a_timestamps_csv_row_are_used(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    nb = nbformat.writes(make_submission(NB01, None))
    (subs / f"Attention 01_zed_attempt_2026-12-03-10-00-00_{NB01}.ipynb").write_text(nb)
    (subs / "cy").mkdir()
    (subs / "cy" / f"{NB01}.ipynb").write_text(nb)
    (subs / "timestamps.csv").write_text("student_id,notebook,timestamp\ncy,,2026-12-01T20:00:00Z\n")
    out = tmp_path / "out"
    (out).mkdir()
    (out / layout.LATE_POLICY).write_text(POLICY)
    items = intake.collect(subs, KNOWN)
    assert all(isinstance(i, intake.Submission) for i in items)  # timestamps.csv is no submission
    late.record_times(ResultsFolder(out), subs, items)
    results = [
        NotebookResult(student_id=i.student_id, notebook=i.notebook, status="graded", score=10, max_score=10)
        for i in items
    ]
    late.apply(ResultsFolder(out), results)
    by = {r.student_id: r for r in results}
    assert (by["zed"].timestamp, by["zed"].penalty, by["zed"].score) == ("2026-12-03T10:00:00+00:00", 2, 8)
    assert (by["cy"].penalty, by["cy"].score, by["cy"].late_note) == (0, 10, "")


@pytest.mark.slow
def test_grade_with_a_policy_fills_the_late_columns_and_tells_the_learner(tmp_path):
    subs = tmp_path / "subs"
    for student, stamp in (("ann", "2026-12-03 08:00:00.000000 UTC"), ("bo", "2026-12-03 08:00:00.000000 UTC")):
        (subs / student).mkdir(parents=True)
        nbformat.write(make_submission(NB01, None), subs / student / f"{NB01}.ipynb")
        (subs / student / "timestamp.txt").write_text(stamp + "\n")  # nbgrader's convention
    (tmp_path / "late.toml").write_text(POLICY)
    opts = grade_options(
        submissions=subs,
        out=tmp_path / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
        late=tmp_path / "late.toml",
    )
    results = {r.student_id: r for r in grade.grade(opts)}
    rows = {r["student_id"]: r for r in csv.DictReader((tmp_path / "out" / "grades.csv").open())}
    ann, bo = rows["ann"], rows["bo"]
    assert ann["duedate"] == "2026-12-01T23:59:00+00:00" and ann["timestamp"] == "2026-12-03T08:00:00+00:00"
    full = results["bo"].auto_max
    assert float(ann["late_submission_penalty"]) == pytest.approx(0.2 * results["ann"].max_score)  # 2 days started
    assert float(ann["raw_score"]) == full and float(ann["score"]) == pytest.approx(
        full - 0.2 * results["ann"].max_score
    )
    assert bo["duedate"] == "2026-12-03T23:59:00+00:00" and float(bo["late_submission_penalty"]) == 0  # extension
    page = (tmp_path / "out" / "feedback" / "ann" / f"{NB01}.html").read_text()
    assert "Late:" in page and "after the due date" in page
    assert "Late:" not in (tmp_path / "out" / "feedback" / "bo" / f"{NB01}.html").read_text()
