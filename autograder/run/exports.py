"""Gradebook imports for an LMS: Canvas's and Moodle's CSV formats, every enrolled learner, missing work blank.

- `canvas.csv`: Canvas's gradebook import ("Grades → Import"): `Student` (Last, First),
  `ID` (Canvas user id), `SIS User ID`, `SIS Login ID`, `Section`, then one column per
  notebook. Canvas matches learners by ID, SIS User ID or SIS Login ID, creates an
  assignment for a column it does not know, and leaves a blank cell ungraded (missing).
- `moodle.csv`: Moodle's "Import grades → CSV file": `First name`, `Last name`,
  `ID number`, `Email address` (map it to "Email address" as the identifier), then one
  column per notebook (map each to its grade item, or "new grade item"); blank: no grade.

Both are written only when the results folder has a roster (RESULTS/roster.csv): without
one there is no LMS id to match.
"""

from __future__ import annotations

from autograder.results import NotebookResult, Status
from autograder.run.sheet import Columns, csv_text
from autograder.submissions.roster import Roster


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
    for x in sorted(roster.learners.values(), key=lambda x: (x.first_last[1].casefold(), x.id)):
        first, last = x.first_last
        student = f"{last}, {first}" if first else last or x.id
        got = scores.get(x.id, {})
        rows.append(
            [student, x.canvas_id, x.sis_user_id, x.sis_login_id, x.section, *(_cell(got, n) for n in notebooks)]
        )
    return csv_text(rows)


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
