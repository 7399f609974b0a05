"""Issue 64 item 6: a grader-side failure is told apart from the learner's, said, and graded again next run.

The grader's environment is broken as a new user's was: nbconvert's templates. A damaged `classic`
template earlier on Jupyter's data path (JUPYTER_PATH, read when feedback pages are rendered, in the
grade process) shadows the installed one, so nbgrader's feedback fails for every submission. The run
must exit non-zero with a summary saying what to fix, keep the exception's own text, and the next run,
with the environment repaired, must grade everything without being asked.
"""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from conftest import grade_options

from autograder import paths
from autograder.results import Problem, Status, problems
from autograder.run import grade
from autograder.run.report import summary

NB01 = "01_scaled_dot_product_attention"
pytestmark = pytest.mark.slow


def _break_templates(root) -> None:
    """A damaged nbconvert `classic` template first on Jupyter's path (unreadable too, for a non-root run)."""
    template = root / "nbconvert" / "templates" / "classic" / "index.html.j2"
    template.parent.mkdir(parents=True)
    template.write_text("{%- extends 'base/display_priority.j2' -%}\n{% block body %}damaged: no endblock\n")
    template.chmod(0o000)


def test_a_broken_environment_fails_loudly_and_the_repaired_run_grades_everything(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    for learner in ("ada", "ben"):
        (subs / learner).mkdir(parents=True)
        shutil.copy(paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb", subs / learner)
    _break_templates(tmp_path / "jupyter")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    out = tmp_path / "R"
    first = grade.grade(grade_options(subs, out, jobs=2))
    assert [r.status for r in first] == [Status.ERROR, Status.ERROR], [r.errors for r in first]
    for row in first:
        assert problems(row.errors) == {Problem.GRADER} and row.retry_next_run, row.errors
        cause = row.errors[-1].rpartition("the cause, from nbgrader's log: ")[2]  # what nbgrader's own error hides
        assert cause.startswith(("jinja2.exceptions.TemplateSyntaxError", "PermissionError")), row.errors
    assert grade.exit_code(first) == grade.EXIT_HOST  # non-zero: a scheduler and a person both see it
    said = summary(first)
    assert f"GRADER-SIDE FAILURE in {NB01} (2 submission(s) not graded, not the learners' doing" in said
    assert "fix what this names, then run grade again" in said
    reasons = [r["reason"] for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8"))]
    saved = [s["errors"][-1] for s in json.loads((out / "results.json").read_text())["submissions"]]
    for text in reasons + saved:  # every file keeps the end, where the cause is, whatever it cuts
        assert text.endswith(cause) and len(text) <= 1500, text

    monkeypatch.delenv("JUPYTER_PATH")  # repaired
    second = sorted(grade.grade(grade_options(subs, out, jobs=2)), key=lambda r: r.student_id)
    assert [(r.student_id, r.status) for r in second] == [("ada", Status.GRADED), ("ben", Status.GRADED)]
    assert all(r.errors == [] and r.score > 0 for r in second), [r.errors for r in second]
    assert grade.exit_code(second) == 0
    assert all((out / "feedback" / s / f"{NB01}.html").is_file() for s in ("ada", "ben"))
