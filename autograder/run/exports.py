"""Gradebook imports for an LMS: Canvas's and Moodle's CSV formats, every enrolled learner, missing work blank.

- `canvas.csv`: Canvas's gradebook import ("Grades → Import"): `Student` (Last, First),
  `ID` (Canvas user id), `SIS User ID`, `SIS Login ID`, `Section`, then one column per
  notebook. Its second row is Canvas's "Points Possible" row (as Canvas's own export writes
  it: the label indented, the identity cells blank, each notebook's whole points), which
  Canvas's importer reads as the points of an assignment it creates or updates. Canvas
  matches learners by ID, SIS User ID or SIS Login ID, creates an assignment for a column it
  does not know, and leaves a blank cell ungraded (missing).
- `moodle.csv`: Moodle's "Import grades → CSV file": `First name`, `Last name`,
  `ID number`, `Email address` (map it to "Email address" as the identifier), then one
  column per notebook (map each to its grade item, or "new grade item"); blank: no grade.

Both are written only when the results folder has a roster (RESULTS/roster.csv): without
one there is no LMS id to match. A graded learner the roster lacks has no LMS row: each is
listed in `not_exported.csv` (and named on the console), never dropped in silence.
"""

from __future__ import annotations

from autograder.material import answers
from autograder.results import NotebookResult, Status
from autograder.run.sheet import Columns, csv_text
from autograder.submissions.roster import Roster

POINTS_POSSIBLE = "    Points Possible"  # the label cell of Canvas's second row, as its gradebook export writes it


def _scores(results: list[NotebookResult], notebooks: list[str]) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, float]] = {}
    for r in results:
        if r.status == Status.GRADED and r.notebook in notebooks:
            scores.setdefault(r.student_id, {})[r.notebook] = r.score
    return scores


def _cell(scores: dict[str, float], notebook: str) -> str:
    return f"{scores[notebook]:g}" if notebook in scores else ""


def canvas_csv(results: list[NotebookResult], roster: Roster, columns: Columns) -> str:
    """Canvas gradebook import: one row per enrolled learner, one column per reported notebook (its LMS name)."""
    notebooks = [n for n, _ in columns]
    scores = _scores(results, notebooks)
    rows: list[list[object]] = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *(c for _, c in columns)]]
    rows.append([POINTS_POSSIBLE, "", "", "", "", *(f"{answers.notebook_points(n):g}" for n in notebooks)])
    for x in sorted(roster.learners.values(), key=lambda x: (x.first_last[1].casefold(), x.id)):
        first, last = x.first_last
        student = f"{last}, {first}" if first else last or x.id
        got = scores.get(x.id, {})
        rows.append(
            [student, x.canvas_id, x.sis_user_id, x.sis_login_id, x.section, *(_cell(got, n) for n in notebooks)]
        )
    return csv_text(rows)


def not_exported(results: list[NotebookResult], roster: Roster) -> list[NotebookResult]:
    """Graded rows of learners the roster lacks: no LMS row can carry them."""
    return [r for r in results if r.status == Status.GRADED and r.student_id not in roster.learners]


def not_exported_csv(rows: list[NotebookResult]) -> str:
    """Each graded row no LMS export carries, and why."""
    lines: list[list[object]] = [["student_id", "notebook", "score", "max_score", "reason"]]
    for r in sorted(rows, key=lambda r: (r.student_id, r.notebook)):
        lines.append([r.student_id, r.notebook, f"{r.score:g}", f"{r.max_score:g}", NOT_ON_ROSTER])
    return csv_text(lines)


NOT_ON_ROSTER = "not on the roster: add the learner to roster.csv (with their LMS ids) and run export"


def moodle_csv(results: list[NotebookResult], roster: Roster, columns: Columns) -> str:
    """Moodle grade import: one row per enrolled learner, identified by email (and ID number)."""
    notebooks = [n for n, _ in columns]
    scores = _scores(results, notebooks)
    rows: list[list[object]] = [["First name", "Last name", "ID number", "Email address", *(c for _, c in columns)]]
    for x in sorted(roster.learners.values(), key=lambda x: x.id):
        first, last = x.first_last
        got = scores.get(x.id, {})
        rows.append([first, last, x.sis_user_id or x.id, x.email, *(_cell(got, n) for n in notebooks)])
    return csv_text(rows)
