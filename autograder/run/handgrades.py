"""Hand scores across resubmissions: kept while the written answer is the same, set aside when it changed.

nbgrader's autograde of a resubmission keeps every manual score and marks it for review.
Here each written answer of the new submission is compared with the one that was graded:
unchanged, its score stands; changed, the score and comment move to
RESULTS/hand_history.json (history, not current) and the answer needs a person again,
as it does in formgrader's list.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import nbformat

from autograder.gradebook.course_folder import SUBMITTED, CourseFolder
from autograder.material import answers
from autograder.results import NotebookResult, write_json_atomic
from autograder.results_folder import ResultsFolder


def _submitted(course: CourseFolder, result: NotebookResult) -> Path:
    return course.format_path(SUBMITTED, result.notebook, result.student_id, result.notebook)


def _written(path: Path) -> dict[str, str]:
    nb = nbformat.read(path, as_version=4)
    return {answers.nbgrader_id(c): c.source for c in nb.cells if answers.is_written(c)}


def answers_before(course: CourseFolder, result: NotebookResult) -> dict[str, str] | None:
    """The written answers of the submission nbgrader holds now (before a new one replaces it)."""
    path = _submitted(course, result)
    try:
        return _written(path) if path.exists() else None
    except (OSError, ValueError):
        return None


def revisit(
    folder: ResultsFolder, course: CourseFolder, result: NotebookResult, before: dict[str, str] | None
) -> list[str]:
    """After autograde of a new submission: reopen each hand-scored answer that changed; returns their ids.

    `folder` is the results folder the course is in: the scores set aside go to its hand_history.json.
    """
    from nbgrader.api import MissingEntry

    if before is None or not any(t.manual for t in result.tests):
        return []
    now, reopened, history = _written(_submitted(course, result)), [], []
    kept = folder.hand_history
    with course.gradebook() as gb:
        for test in (t for t in result.tests if t.manual):
            try:
                grade = gb.find_grade(test.name, result.notebook, result.notebook, result.student_id)
                comment = gb.find_comment(test.name, result.notebook, result.notebook, result.student_id)
            except MissingEntry:
                continue
            if grade.manual_score is None:
                continue
            if before.get(test.name) == now.get(test.name):
                grade.needs_manual_grade = False  # the same answer: the score a person gave stands
                continue
            history.append(_entry(result, test.name, float(grade.manual_score), comment.manual_comment or "", kept))
            grade.manual_score, comment.manual_comment = None, None
            grade.needs_manual_grade = grade.auto_score is None  # a blank answer is nbgrader's automatic 0
            reopened.append(test.name)
        gb.db.commit()
    _keep(kept, history)
    return reopened


def _entry(result: NotebookResult, answer: str, points: float, comment: str, kept: Path) -> dict:
    print(
        f"{result.student_id} · {result.notebook} · {answer}: the written answer changed; its hand score "
        f"({points:g}) is set aside in {kept.name} and it needs grading again",
        file=sys.stderr,
    )
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return {
        "student_id": result.student_id,
        "notebook": result.notebook,
        "answer": answer,
        "points": points,
        "comment": comment,
        "set_aside": when,
        "why": "the learner resubmitted with a different answer",
    }


def _keep(path: Path, entries: list[dict]) -> None:
    if not entries:
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8")).get("set_aside", [])
    except (OSError, ValueError, AttributeError):
        old = []
    write_json_atomic(path, {"set_aside": [*old, *entries]})
