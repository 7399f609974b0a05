"""Canvas's "Points Possible" row, and graded learners the roster lacks (issue 64 item 3, issue 67).

Canvas's gradebook importer (instructure/canvas-lms, GradebookImporter and its spec) reads the row whose
Student cell is "Points Possible" (Canvas's own export indents it) as each assignment column's points:
identity cells blank, a number per assignment. A new assignment imported without it has no points.
"""

from __future__ import annotations

import csv
import io

from autograder import paths
from autograder.material import answers
from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.run import assignments, exports, report

NB01, NB02 = "01_scaled_dot_product_attention", "02_masks"
ROSTER = (
    "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,section\n"
    "ann,Ann Lovelace,ann@example.edu,1234,S001,alovelace,88,A\n"
    "bo,Bo Chen,bo@example.edu,1240,S002,bchen,89,B\n"
)


def _results() -> list[NotebookResult]:
    return [
        NotebookResult(student_id="ann", notebook=NB01, status=Status.GRADED, score=9, max_score=14),
        NotebookResult(student_id="zed", notebook=NB01, status=Status.GRADED, score=7, max_score=14),
        NotebookResult(student_id="zed", notebook=NB02, status=Status.GRADED, score=3, max_score=5),
        NotebookResult(student_id="yan", notebook=NB01, status=Status.REJECTED, errors=["empty"]),
    ]


def _written(tmp_path) -> ResultsFolder:
    folder = ResultsFolder(tmp_path)
    folder.roster.write_text(ROSTER)
    assignments.remember(folder, {NB01: "Lab 1", NB02: "Lab 2"})
    report.write_reports(folder, _results())
    return folder


def test_the_canvas_csv_carries_canvas_points_possible_row_per_assignment(tmp_path):
    folder = _written(tmp_path)
    rows = list(csv.reader(io.StringIO(folder.reports()["canvas"].read_text())))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1", "Lab 2"]
    whole = [f"{answers.notebook_points(n):g}" for n in (NB01, NB02)]
    assert rows[1] == ["    Points Possible", "", "", "", "", *whole]  # the second row, as Canvas exports it
    assert rows[1][0].strip() == "Points Possible" and all(float(p) > 0 for p in whole)
    assert [r[1] for r in rows[2:]] == ["1240", "1234"]  # then one row per enrolled learner, as before
    assert rows[3][5:] == ["9", ""]


def test_a_graded_learner_not_on_the_roster_is_named_and_listed(tmp_path, capsys):
    folder = _written(tmp_path)
    err = capsys.readouterr().err
    assert "warning: 1 graded learner(s) not on the roster, so in no LMS export (canvas.csv, moodle.csv): zed" in err
    assert str(folder.not_exported_csv) in err and "add them to the roster, then run export" in err
    listed = list(csv.DictReader(io.StringIO(folder.not_exported_csv.read_text())))
    assert [(r["student_id"], r["notebook"], r["score"]) for r in listed] == [("zed", NB01, "7"), ("zed", NB02, "3")]
    assert all(r["reason"] == exports.NOT_ON_ROSTER for r in listed)
    grades = {(r["student_id"], r["notebook"]) for r in csv.DictReader(folder.grades_csv.open())}
    assert ("zed", NB01) in grades  # still in grades.csv and lms.csv: only the LMS imports lack them
    folder.roster.write_text(ROSTER + "zed,Zed Zhou,zed@example.edu,1300,S003,zzhou,90,A\n")
    report.write_reports(folder, _results())  # added to the roster: exported, and the list is gone
    assert "not on the roster" not in capsys.readouterr().err and not folder.not_exported_csv.exists()
    assert "1300" in folder.reports()["canvas"].read_text()


def test_without_a_roster_nothing_is_listed(tmp_path, capsys):
    folder = ResultsFolder(tmp_path)
    report.write_reports(folder, _results())
    assert not folder.not_exported_csv.exists() and "roster" not in capsys.readouterr().err
    assert set(paths.notebook_names()) >= {NB01, NB02}
