"""Scores a person gives: a written answer's, or an override of an autograded test (`mark`); then `export`.

nbgrader's formgrader works on the same gradebook (RESULTS/.course/gradebook.db); after
grading there, `export` brings the points into grades.csv, lms.csv, results.json and
the feedback. `grade` does the same at the end of every run, and never overwrites a
score a person gave.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.gradebook import records as gradebook
from autograder.gradebook.course import Course
from autograder.results import Status
from autograder.results_folder import ResultsFolder
from autograder.run import grade, overrides


def export(out: Path) -> list:
    """Rewrite RESULTS' reports and the feedback of every submission with a written answer."""
    folder = ResultsFolder(out)
    course = Course(folder.course_dir)
    if not course.db_path.exists():
        raise FileNotFoundError(f"{out} holds no graded results (no .course/gradebook.db)")
    recorder = grade.Recorder(folder, course)
    results = grade.finish(folder, recorder)
    for result in results:
        if result.status == Status.GRADED and any(t.manual or t.overridden for t in result.tests):
            recorder.refresh_feedback(result)
    return results


def export_main(argv: list[str] | None = None) -> int:
    """Rewrite grades.csv, lms.csv, results.json and feedback/ with the points people gave to written answers."""
    parser = argparse.ArgumentParser(prog="python -m autograder export", description=export_main.__doc__)
    parser.add_argument("results", type=Path)
    args = parser.parse_args(argv)
    try:
        results = export(args.results.resolve())
    except (OSError, grade.runlock.RunBusy) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    pending = sum(t.pending for r in results for t in r.tests)
    print(
        f"{len(results)} row(s) in {ResultsFolder(args.results).grades_csv}; {pending} written answer(s) still to grade"
    )
    return 0


def mark_main(argv: list[str] | None = None) -> int:
    """Score a written answer (as formgrader would) or override an autograded test's score, then rewrite the reports."""
    parser = argparse.ArgumentParser(prog="python -m autograder mark", description=mark_main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("student")
    parser.add_argument("notebook")
    parser.add_argument("answer", help="the grade_id of a written answer or of a test (see results.json)")
    parser.add_argument("points", type=float)
    parser.add_argument("--comment", default="", help="shown to the learner in the feedback")
    args = parser.parse_args(argv)
    out = args.results.resolve()
    folder = ResultsFolder(out)
    course = Course(folder.course_dir)
    saved = folder.states().get(f"{args.student}/{args.notebook}")
    result = saved.result if saved else None
    is_test = result is not None and _is_test(result, args.answer)
    try:
        if is_test and result is not None:
            top = overrides.give(out, course, result, args.answer, args.points, args.comment)
        else:
            top = gradebook.set_manual(course, args.student, args.notebook, args.answer, args.points, args.comment)
        export(out)
    except (KeyError, ValueError, OSError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    overridden = " (overrides the automatic score)" if is_test else ""
    print(f"{args.student} · {args.notebook} · {args.answer}: {args.points:g} / {top:g}{overridden}")
    return 0


def _is_test(result, name: str) -> bool:
    return any(t.name == name and not t.manual for t in result.tests)
