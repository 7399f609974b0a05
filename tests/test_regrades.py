"""Regrades and resubmissions through real grade runs and the real nbgrader gradebook.

An instructor's override of an autograded test (by `mark` or formgrader's score box) reaches
every export and the feedback, survives a re-run, and is dropped, with a word, when the
learner resubmits; a hand score on a written answer that changed is set aside as history.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder import results_folder as layout
from autograder.gradebook.course import COURSE_ID
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import GRADED_BY_HAND, NEEDS_MANUAL, NO_ANSWER
from autograder.run import grade, overrides

pytestmark = pytest.mark.slow
NB = "01_scaled_dot_product_attention"  # the cheapest notebook with a written answer: each test grades it 2-4 times
ANSWER = (
    "The scaled scores have a standard deviation of about 512, so softmax saturates; initialise with std 1/sqrt(512)."
)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True)


def _submit(tmp: Path, student: str, written: str | None = ANSWER, tweak: str = "") -> None:
    """The reference answers; the written answer set (None: left as handed out); `tweak` appended to a code answer."""
    nb = make_submission(NB, None)
    code = [c for c in nb.cells if answers.is_answer(c) and c.cell_type == "code"]
    code[0].source += tweak
    for cell in nb.cells:
        if answers.is_written(cell) and written is not None:
            cell.source = written
    (tmp / "subs" / student).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, tmp / "subs" / student / f"{NB}.ipynb")


def _grade(tmp: Path) -> grade.NotebookResult:
    opts = grade_options(
        submissions=tmp / "subs",
        out=tmp / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
    )
    (result,) = grade.grade(opts)
    return result


def _row(tmp: Path) -> dict:
    [row] = list(csv.DictReader((tmp / "out" / "grades.csv").open(encoding="utf-8")))
    return row


def _saved_tests(tmp: Path) -> dict[str, dict]:
    [sub] = json.loads((tmp / "out" / "results.json").read_text())["submissions"]
    return {t["name"]: t for t in sub["tests"]}


def _gb(tmp: Path) -> Gradebook:
    return Gradebook(f"sqlite:///{tmp / 'out' / '.course' / 'gradebook.db'}", COURSE_ID)


def _page(tmp: Path, student: str = "wes") -> str:
    return (tmp / "out" / "feedback" / student / f"{NB}.html").read_text(encoding="utf-8")


def test_mark_overrides_a_test_everywhere_keeps_it_on_a_rerun_and_drops_it_on_a_resubmission(tmp_path, capfd):
    _submit(tmp_path, "wes")
    first = _grade(tmp_path)
    test = next(t for t in first.tests if not t.manual and t.max_score >= 2 and t.status == "passed")
    run = _cli("mark", str(tmp_path / "out"), "wes", NB, test.name, "1", "--comment", "Hard-coded the shape: 1 point.")
    assert run.returncode == 0, run.stderr
    assert "overrides the automatic score" in run.stdout
    lowered = first.score - test.max_score + 1
    row = _row(tmp_path)
    assert float(row["score"]) == lowered and row["overridden"] == test.name
    [lms] = list(csv.DictReader((tmp_path / "out" / "lms.csv").open(encoding="utf-8")))
    assert float(lms[NB]) == lowered
    saved = _saved_tests(tmp_path)[test.name]
    assert (saved["score"], saved["overridden"], saved["auto_score"]) == (1.0, True, test.max_score)
    page = _page(tmp_path)
    assert "Hard-coded the shape: 1 point." in page and overrides.SAID in page and "overridden" in page
    with _gb(tmp_path) as gb:  # formgrader and nbgrader export see the same score
        assert gb.find_grade(test.name, NB, NB, "wes").manual_score == 1.0

    again = _grade(tmp_path)  # nothing changed: the override stays, and says so
    assert again.score == lowered and {t.name: t.overridden for t in again.tests}[test.name]
    assert "override dropped" not in capfd.readouterr().err

    _submit(tmp_path, "wes", tweak="\n# resubmitted\n")
    changed = _grade(tmp_path)
    err = capfd.readouterr().err
    assert f"override dropped: wes · {NB} · {test.name}" in err
    assert changed.score == first.score and not any(t.overridden for t in changed.tests)
    assert _row(tmp_path)["overridden"] == ""
    record = json.loads((tmp_path / "out" / layout.OVERRIDES).read_text())
    assert record["overrides"] == [] and record["dropped"][0]["comment"] == "Hard-coded the shape: 1 point."
    assert overrides.SAID not in _page(tmp_path)
    with _gb(tmp_path) as gb:
        assert gb.find_grade(test.name, NB, NB, "wes").manual_score == test.max_score


def test_a_score_typed_in_formgraders_box_for_a_test_is_honoured_by_export(tmp_path):
    _submit(tmp_path, "wes")
    first = _grade(tmp_path)
    test = next(t for t in first.tests if not t.manual and t.status == "passed")
    with _gb(tmp_path) as gb:  # what formgrader's score box writes
        gb.find_grade(test.name, NB, NB, "wes").manual_score = 0
        gb.db.commit()
    run = _cli("export", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert float(_row(tmp_path)["score"]) == first.score - test.max_score
    assert _row(tmp_path)["overridden"] == test.name
    [held] = json.loads((tmp_path / "out" / layout.OVERRIDES).read_text())["overrides"]
    assert (held["test"], held["points"], held["source"]) == (test.name, 0.0, "formgrader")
    assert overrides.SAID in _page(tmp_path)
    again = _grade(tmp_path)
    assert again.score == first.score - test.max_score


def test_an_override_outside_the_tests_range_or_of_an_unknown_test_is_refused(tmp_path):
    _submit(tmp_path, "wes")
    first = _grade(tmp_path)
    test = next(t for t in first.tests if not t.manual)
    too_many = _cli("mark", str(tmp_path / "out"), "wes", NB, test.name, str(test.max_score + 1))
    assert too_many.returncode == 2 and f"outside 0..{test.max_score:g}" in too_many.stderr
    unknown = _cli("mark", str(tmp_path / "out"), "wes", NB, "no_such_test", "1")
    assert unknown.returncode == 2 and "no graded answer" in unknown.stderr
    assert not (tmp_path / "out" / layout.OVERRIDES).exists()


def test_a_changed_written_answer_needs_a_person_again_and_its_old_score_is_history(tmp_path):
    _submit(tmp_path, "wes")
    first = _grade(tmp_path)
    [gid] = [t.name for t in first.tests if t.manual]
    run = _cli("mark", str(tmp_path / "out"), "wes", NB, gid, "2", "--comment", "All three axes.")
    assert run.returncode == 0, run.stderr
    _submit(tmp_path, "wes", tweak="\n# code changed, answer the same\n")
    kept = _grade(tmp_path)
    assert {t.name: (t.status, t.score) for t in kept.tests}[gid] == (GRADED_BY_HAND, 2.0)

    _submit(tmp_path, "wes", written="Only the batch.")
    reopened = _grade(tmp_path)
    assert {t.name: (t.status, t.score) for t in reopened.tests}[gid] == (NEEDS_MANUAL, 0.0)
    assert _row(tmp_path)["needs_manual_grading"] == gid
    assert "All three axes." not in _page(tmp_path) and NEEDS_MANUAL in _page(tmp_path)
    [old] = json.loads((tmp_path / "out" / layout.HAND_HISTORY).read_text())["set_aside"]
    assert (old["answer"], old["points"], old["comment"]) == (gid, 2.0, "All three axes.")
    with _gb(tmp_path) as gb:  # formgrader lists it again
        grade_row = gb.find_grade(gid, NB, NB, "wes")
        assert grade_row.manual_score is None and grade_row.needs_manual_grade
    export = _cli("export", str(tmp_path / "out"))
    assert "1 written answer(s) still to grade" in export.stdout, export.stdout


def test_a_blank_written_answer_is_an_automatic_zero_and_the_to_grade_count_matches_formgrader(tmp_path):
    _submit(tmp_path, "wes", written=None)
    _submit(tmp_path, "ann")
    opts = grade_options(submissions=tmp_path / "subs", out=tmp_path / "out", jobs=1, quiet=True)
    results = {r.student_id: r for r in grade.grade(opts)}
    [gid] = [t.name for t in results["wes"].tests if t.manual]
    assert {t.name: t.status for t in results["wes"].tests}[gid] == NO_ANSWER
    assert {t.name: t.status for t in results["ann"].tests}[gid] == NEEDS_MANUAL
    assert "No answer given" in _page(tmp_path, "wes")
    pending = sum(t.pending for r in results.values() for t in r.tests)
    with _gb(tmp_path) as gb:  # what formgrader lists as needing a manual grade
        listed = sum(
            g.needs_manual_grade for s in ("wes", "ann") for g in gb.find_submission_notebook(NB, NB, s).grades
        )
    assert pending == listed == 1
    export = _cli("export", str(tmp_path / "out"))
    assert "1 written answer(s) still to grade" in export.stdout, export.stdout
