"""The grade command's refusals before anything is written: each instructor's mistake named, with what to do.

Every check here reads only: a refused run leaves no results folder, key or file behind.
"""

from __future__ import annotations

from pathlib import Path

from autograder.results_folder import ResultsFolder
from autograder.submissions import intake

USAGE = "python -m autograder grade SUBMISSIONS --out RESULTS"


def refusal(submissions: Path, out: Path, notebooks: set[str]) -> str | None:
    """Why grading `submissions` into `out` is refused (a sentence naming the fix), or None."""
    if submissions.is_file():
        return (
            f"{submissions} is a file, not the folder of submissions: give the folder that holds the learners' "
            f"folders or zips ({USAGE}); to run one notebook's visible tests: python -m autograder check NOTEBOOK"
        )
    if not submissions.is_dir():
        return f"submissions folder {submissions} does not exist"
    subs, res = submissions.resolve(), out.resolve()
    if res == subs or res.is_relative_to(subs):
        return (
            f"--out {out} is inside the submissions folder {submissions}: its files would be read as submissions; "
            f"put RESULTS outside it, e.g. --out {subs.parent / 'results'}"
        )
    if ResultsFolder(subs).holds_results():
        return (
            f"{submissions} is a results folder (it holds grades or saved states), not submissions: were the "
            f"arguments swapped? {USAGE}"
        )
    return _nothing_to_grade(submissions, notebooks)


def _nothing_to_grade(submissions: Path, notebooks: set[str]) -> str | None:
    """A folder where no entry is a submission: refused, naming a folder below it that has some."""
    if intake.any_submission(submissions, notebooks):
        return None
    said = f"nothing in {submissions} is a submission (a <student_id>/ folder of notebooks, a zip, or an LMS download)"
    below = [p for p in sorted(submissions.iterdir()) if p.is_dir() and intake.any_submission(p, notebooks)]
    if below:
        return f"{said}: did you mean {' or '.join(map(str, below[:3]))}? {USAGE}"
    return f"{said}; give the folder that holds them ({USAGE})"
