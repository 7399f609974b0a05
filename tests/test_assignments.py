"""Exports per assignment: `--assignment` limits and names the columns, a file for another
assignment is reported and not graded until asked, and a rejected submission is blank
everywhere and gets a feedback page saying why."""

from __future__ import annotations

import csv
import io
import json

import nbformat
import pytest
from conftest import grade_options
from support import make_submission

from autograder import paths
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.run import assignments, grade, report
from autograder.submissions import intake

NB01, NB02 = "01_scaled_dot_product_attention", "02_masks"
ROSTER = (
    "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section\n"
    "ann,Ann Lovelace,ann@example.edu,1234,S001,alovelace,88,alovelace,A\n"
    "bo,Bo Chen,bo@example.edu,1240,S002,bchen,89,bchen,B\n"
)


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_an_assignment_is_a_notebook_by_name_or_number_with_its_lms_name():
    assert assignments.parse(["01"]) == {NB01: NB01}
    assert assignments.parse([f"{NB02}=Lab 2: masks", "01 = Lab 1"]) == {NB02: "Lab 2: masks", NB01: "Lab 1"}
    with pytest.raises(assignments.AssignmentError, match="did you mean '02_masks'"):
        assignments.parse(["02_mask"])
    with pytest.raises(assignments.AssignmentError, match="no notebook of this course"):
        assignments.parse(["11"])


def test_a_file_of_another_notebook_is_set_aside_and_a_grade_already_held_is_kept():
    nb = nbformat.v4.new_notebook()
    other = intake.Submission(student_id="ann", notebook=NB02, nb=nb, content_hash="x", source="ann/02_masks.ipynb")
    mine = intake.Submission(student_id="ann", notebook=NB01, nb=nb, content_hash="y")
    kept, said = assignments.set_aside([mine, other], {NB01: "Lab 1"}, held=set())
    assert kept[0] is mine and kept[1].status == Status.REJECTED and kept[1].notebook == NB02
    assert "handed in with the download for 01_scaled_dot_product_attention: not graded" in kept[1].errors[0]
    assert said == [
        f"ann/02_masks.ipynb: {kept[1].errors[0].removesuffix(' (ask your instructor)')} "
        "(grade it with --assignment 02)"
    ]
    kept, said = assignments.set_aside([mine, other], {NB01: "Lab 1"}, held={"ann/02_masks"})
    assert kept == [mine] and len(said) == 1  # graded before: left as it is, still told


def test_the_folder_remembers_every_assignment_named_in_course_order(tmp_path):
    folder = ResultsFolder(tmp_path)
    assert assignments.load(folder) is None and assignments.columns(folder)[0] == (NB01, NB01)
    assignments.remember(folder, {NB02: "Lab 2"})
    assert assignments.remember(folder, {NB01: "Lab 1"}) == {NB01: "Lab 1", NB02: "Lab 2"}
    assert assignments.columns(folder) == [(NB01, "Lab 1"), (NB02, "Lab 2")]
    folder.assignments.write_text("[1, 2]")
    with pytest.raises(assignments.AssignmentError, match="not a map"):
        assignments.load(folder)


def test_the_reports_carry_the_assignments_columns_under_their_lms_names_and_rejected_work_blank(tmp_path):
    folder = ResultsFolder(tmp_path)
    folder.roster.write_text(ROSTER)
    assignments.remember(folder, {NB01: "Lab 1: attention"})
    results = [
        NotebookResult(student_id="ann", notebook=NB01, status=Status.GRADED, score=9, max_score=14),
        NotebookResult(student_id="bo", notebook=NB01, status=Status.REJECTED, max_score=14, errors=["empty"]),
    ]
    report.write_reports(folder, results)
    grades = _rows(folder.grades_csv.read_text())
    assert {(r["student_id"], r["notebook"]) for r in grades} == {("ann", NB01), ("bo", NB01)}  # no other notebook
    assert {r["assignment"] for r in grades} == {"Lab 1: attention"}
    bo = next(r for r in grades if r["student_id"] == "bo")
    assert (bo["score"], bo["raw_score"], bo["status"], bo["reason"]) == ("", "", "rejected", "empty")
    lms = folder.reports()["lms"].read_text().splitlines()
    assert lms[0] == "student_id,Lab 1: attention,total" and lms[1:] == ["ann,9,9", "bo,,"]
    canvas = folder.reports()["canvas"].read_text().splitlines()
    assert canvas[0].endswith("Section,Lab 1: attention") and canvas[1:] == [
        f"    Points Possible,,,,,{answers.notebook_points(NB01):g}",  # Canvas's second row: the column's points
        '"Chen, Bo",1240,S002,bchen,B,',
        '"Lovelace, Ann",1234,S001,alovelace,A,9',
    ]
    assert [r["Lab 1: attention"] for r in _rows(folder.reports()["moodle"].read_text())] == ["9", ""]  # by id


def test_a_rejected_submission_gets_a_page_that_says_why(tmp_path):
    from autograder.gradebook import feedback

    row = NotebookResult(student_id="bo", notebook=NB01, status=Status.REJECTED, errors=["bo/x.ipynb: <not JSON>"])
    page = feedback.notice(row, ResultsFolder(tmp_path), paths.notebook_names()).read_text()
    assert page.startswith("<!DOCTYPE html>") and feedback.CSP in page
    assert "&lt;not JSON&gt;" in page and "<not JSON>" not in page and "not graded" in page


@pytest.mark.slow
def test_a_download_for_one_assignment_grades_it_and_sets_the_rest_aside(tmp_path, capsys):
    subs, out = tmp_path / "subs", tmp_path / "out"
    for student, notebook in (("ann", NB01), ("ann", NB02), ("bo", NB01)):
        (subs / student).mkdir(parents=True, exist_ok=True)
        nbformat.write(make_submission(notebook, None), subs / student / f"{notebook}.ipynb")
    (subs / "bo" / f"{NB01}.ipynb").write_text("")  # an empty file: rejected
    (tmp_path / "roster.csv").write_text(ROSTER)

    def download(spec: str) -> dict:
        """Grade the submissions as the download of one assignment (spec: "NN=Name"), by (student, notebook)."""
        opts = grade_options(submissions=subs, out=out, jobs=1, limits=Limits(), quiet=True,
                             roster=tmp_path / "roster.csv", assignment=assignments.parse([spec]))  # fmt: skip
        return {(r.student_id, r.notebook): r for r in grade.grade(opts)}

    results = download("01=Lab 1")
    assert results["ann", NB01].status == Status.GRADED and results["ann", NB01].score > 0
    assert results["ann", NB02].status == Status.REJECTED and "not graded" in results["ann", NB02].errors[0]
    assert "ann/02_masks.ipynb" in capsys.readouterr().err  # told to whoever runs it
    assert results["bo", NB01].status == Status.REJECTED
    folder = ResultsFolder(out)
    assert folder.reports()["lms"].read_text().splitlines()[0] == "student_id,Lab 1,total"
    assert "bo,," in folder.reports()["lms"].read_text()
    page = (folder.feedback_dir / "bo" / f"{NB01}.html").read_text()
    assert "not graded" in page and "bo/" in page  # the reason names the file
    assert "not graded" in (folder.feedback_dir / "ann" / f"{NB02}.html").read_text()
    # the 02 download, later, into the same folder: 02 is graded now and both are columns
    again = download("02=Lab 2")
    assert again["ann", NB02].status == Status.GRADED and again["ann", NB01].status == Status.GRADED
    assert folder.reports()["lms"].read_text().splitlines()[0] == "student_id,Lab 1,Lab 2,total"
    assert json.loads(folder.assignments.read_text()) == {NB01: "Lab 1", NB02: "Lab 2"}
