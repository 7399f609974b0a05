"""A roster puts every enrolled learner in every export; Canvas's and Moodle's import CSVs; missing work is blank."""

from __future__ import annotations

import csv
import io

import nbformat
import pytest
from conftest import grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder import paths
from autograder.gradebook.course import COURSE_ID
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.run import grade, report

NB01 = "01_scaled_dot_product_attention"
ROSTER = (
    "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section\n"
    "fay,Fay Lovelace,fay@example.edu,1234,S001,flovelace,88,flovelace,A\n"
    'bo,"Chen, Bo",bo@example.edu,1240,S002,bchen,89,bchen,B\n'
)


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_lms_csv_leaves_work_not_graded_blank_not_zero():
    results = [
        NotebookResult(student_id="ann", notebook=NB01, status="graded", score=3, max_score=14),
        NotebookResult(student_id="ann", notebook="02_masks", status="rejected", errors=["broken"]),
    ]
    results.append(NotebookResult(student_id="bea", notebook=NB01, status="rejected", errors=["not JSON"]))
    rows = {r["student_id"]: r for r in _rows(report.lms_csv(results))}
    assert rows["ann"][NB01] == "3" and rows["ann"]["02_masks"] == "" and rows["ann"]["total"] == "3"
    assert rows["bea"][NB01] == "" and rows["bea"]["total"] == ""  # nothing graded: no total of 0 either


@pytest.mark.slow
def test_a_roster_puts_every_learner_in_grades_lms_canvas_and_moodle_exports(tmp_path):
    (tmp_path / "subs").mkdir()
    nbformat.write(make_submission(NB01, None), tmp_path / "subs" / f"lovelacefay_1234_567890_{NB01}.ipynb")
    (tmp_path / "roster.csv").write_text(ROSTER)
    opts = grade_options(
        submissions=tmp_path / "subs",
        out=tmp_path / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
        roster=tmp_path / "roster.csv",
    )
    [fay] = grade.grade(opts)
    out = tmp_path / "out"
    grades = _rows((out / "grades.csv").read_text())
    mine = next(r for r in grades if r["student_id"] == "fay" and r["notebook"] == NB01)
    assert (mine["first_name"], mine["last_name"], mine["email"]) == ("Fay", "Lovelace", "fay@example.edu")
    assert float(mine["score"]) == fay.score
    missing = [r for r in grades if r["status"] == report.MISSING]
    assert {(r["student_id"], r["notebook"]) for r in missing} == (
        {("bo", n) for n in paths.notebook_names()} | {("fay", n) for n in paths.notebook_names() if n != NB01}
    )
    assert all(r["score"] == "" for r in missing)
    whole = {n: f"{answers.notebook_points(n):g}" for n in paths.notebook_names()}  # written answers included
    assert all(r["max_score"] == whole[r["notebook"]] for r in missing), missing
    assert mine["max_score"] == whole[NB01]
    assert next(r for r in missing if r["student_id"] == "bo")["last_name"] == "Chen"

    lms = {r["student_id"]: r for r in _rows((out / "lms.csv").read_text())}
    assert set(lms) == {"fay", "bo"} and lms["bo"][NB01] == "" and lms["bo"]["total"] == ""
    assert float(lms["fay"][NB01]) == fay.score and lms["fay"]["02_masks"] == ""

    canvas = list(csv.reader(io.StringIO((out / "canvas.csv").read_text())))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *paths.notebook_names()]
    by_id = {row[1]: row for row in canvas[1:]}
    assert by_id["1234"][:5] == ["Lovelace, Fay", "1234", "S001", "flovelace", "A"]
    assert float(by_id["1234"][5]) == fay.score and by_id["1240"][5:] == [""] * len(paths.notebook_names())

    moodle = {r["Email address"]: r for r in _rows((out / "moodle.csv").read_text())}
    assert (moodle["bo@example.edu"]["First name"], moodle["bo@example.edu"]["Last name"]) == ("Bo", "Chen")
    assert moodle["bo@example.edu"][NB01] == "" and float(moodle["fay@example.edu"][NB01]) == fay.score

    with Gradebook(f"sqlite:///{out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:  # formgrader's Students
        student = gb.find_student("bo")
        assert (student.first_name, student.last_name, student.email) == ("Bo", "Chen", "bo@example.edu")
