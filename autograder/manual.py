"""Written answers, graded by a person: score one (`mark`), then rewrite the reports (`export`).

nbgrader's formgrader works on the same gradebook (RESULTS/.course/gradebook.db); after
grading there, `export` brings the points into grades.csv, lms.csv, results.json and
the feedback. `grade` does the same at the end of every run, and never overwrites a
score a person gave.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder import grade, gradebook
from autograder.course import Course


def export(out: Path) -> list:
    """Rewrite RESULTS' reports and the feedback of every submission with a written answer."""
    if not (out / ".course" / "gradebook.db").exists():
        raise FileNotFoundError(f"{out} holds no graded results (no .course/gradebook.db)")
    opts = grade.Options(out, out, quiet=True)
    recorder = grade.Recorder(opts, Course(out / ".course"))
    results = grade.finish(opts, recorder)
    for result in results:
        if result.status == "graded" and any(t.manual for t in result.tests):
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
    print(f"{len(results)} row(s) in {args.results / 'grades.csv'}; {pending} written answer(s) still to grade")
    return 0


def mark_main(argv: list[str] | None = None) -> int:
    """Give a written answer its points (as formgrader would), then rewrite the reports."""
    parser = argparse.ArgumentParser(prog="python -m autograder mark", description=mark_main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("student")
    parser.add_argument("notebook")
    parser.add_argument("answer", help="the written answer's grade_id (see results.json)")
    parser.add_argument("points", type=float)
    parser.add_argument("--comment", default="", help="shown to the learner in the feedback")
    args = parser.parse_args(argv)
    course = Course(args.results.resolve() / ".course")
    try:
        top = gradebook.set_manual(course, args.student, args.notebook, args.answer, args.points, args.comment)
        export(args.results.resolve())
    except (KeyError, ValueError, OSError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    print(f"{args.student} · {args.notebook} · {args.answer}: {args.points:g} / {top:g}")
    return 0
