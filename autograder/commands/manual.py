"""Scores a person gives: a written answer's, or an override of an autograded test (`mark`); then `export`.

nbgrader's formgrader works on the same gradebook (RESULTS/.course/gradebook.db); after
grading there, `export` brings the points into grades.csv, lms.csv, results.json and
the feedback. `grade` does the same at the end of every run, and never overwrites a
score a person gave. `mark` without POINTS shows what there is to grade: the written
answers still to score (no STUDENT), or a learner's written answers, each with its rubric.
With `--anonymous` every learner is shown, and named, by their pseudonym
(autograder.commands.formgrader.pseudonyms), as formgrader --anonymous shows them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.commands import formgrader
from autograder.gradebook import grading_view
from autograder.gradebook import records as gradebook
from autograder.gradebook.course import Course
from autograder.material import rubrics
from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.run import grade, gradebook_stage, overrides


def export(folder: ResultsFolder) -> list:
    """Rewrite RESULTS' reports and the feedback of every submission with a written answer."""
    course = Course.of(folder)
    if not course.db_path.exists():
        raise FileNotFoundError(f"{folder} holds no graded results (no .course/gradebook.db)")
    recorder = gradebook_stage.Recorder(folder, course)
    results = grade.finish(folder, recorder)
    for result in results:
        if result.status == Status.GRADED and any(t.manual or t.overridden for t in result.tests):
            recorder.refresh_feedback(result)
    grade.tell_unfollowed(recorder)
    return results


def export_main(argv: list[str] | None = None) -> int:
    """Rewrite grades.csv, lms.csv, results.json and feedback/ with the points people gave to written answers."""
    parser = argparse.ArgumentParser(prog="python -m autograder export", description=export_main.__doc__)
    parser.add_argument("results", type=Path)
    args = parser.parse_args(argv)
    folder = ResultsFolder(args.results.resolve())
    try:
        results = export(folder)
    except (OSError, grade.runlock.RunBusy) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    pending = sum(t.pending for r in results for t in r.tests)
    print(f"{len(results)} row(s) in {folder.grades_csv}; {pending} written answer(s) still to grade")
    return 0


def _mark_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder mark", description=mark_main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("student", nargs="?", help="omitted: list the written answers still to grade")
    parser.add_argument("notebook", nargs="?", help="omitted: every notebook of STUDENT")
    parser.add_argument("answer", nargs="?", help="the grade_id of a written answer or of a test (see results.json)")
    parser.add_argument("points", nargs="?", type=float, help="omitted: show the answer(s) and rubric, change nothing")
    parser.add_argument("--comment", default="", help="shown to the learner in the feedback")
    parser.add_argument("--anonymous", action="store_true", help="learners shown and named by their pseudonyms")
    parser.add_argument("--key", type=Path, help="the course key, for --anonymous (default: as grade finds it)")
    return parser


def mark_main(argv: list[str] | None = None) -> int:
    """Score a written answer (as formgrader would) or override an autograded test's score, then rewrite the reports.

    Without POINTS: show the written answers with their rubrics (or, without STUDENT, those still to grade).
    """
    args = _mark_parser().parse_args(argv)
    folder = ResultsFolder(args.results.resolve())
    try:
        grading_view.collect(folder)  # an anonymous formgrader's scores first: they are the latest
        names = formgrader.pseudonyms(folder, args.key) if args.anonymous else None
        student = _real_id(args.student, names) if args.student else None
    except (KeyError, ValueError, OSError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    shown = (names or {}).get(student or "", student or "")
    if student is None or args.points is None:
        print(show(folder, student, args.notebook, args.answer, names))
        return 0
    return _mark(folder, student, shown, args)


def _real_id(student: str, names: dict[str, str] | None) -> str:
    """The student id a command line names: itself, or with --anonymous the learner with that pseudonym."""
    if names is None:
        return student
    by_alias = {alias: real for real, alias in names.items()}
    if student not in by_alias:
        raise KeyError(f"no learner has the pseudonym {student!r} (with --anonymous, name learners as it lists them)")
    return by_alias[student]


def _mark(folder: ResultsFolder, student: str, shown: str, args: argparse.Namespace) -> int:
    """Store one score (a written answer's, or a test's override), rewrite the reports, say it."""
    course = Course.of(folder)
    saved = folder.states().get(f"{student}/{args.notebook}")
    result = saved.result if saved else None
    is_test = result is not None and _is_test(result, args.answer)
    try:
        if is_test and result is not None:
            top = overrides.give(folder, course, result, args.answer, args.points, args.comment)
        else:
            top = gradebook.set_manual(course, student, args.notebook, args.answer, args.points, args.comment)
        export(folder)
    except (KeyError, ValueError, OSError) as exc:
        print(f"ERROR: {str(exc).replace(student, shown) if shown != student else exc}", file=sys.stderr)
        return 2
    overridden = " (overrides the automatic score)" if is_test else ""
    print(f"{shown} · {args.notebook} · {args.answer}: {args.points:g} / {top:g}{overridden}")
    return 0


def _is_test(result, name: str) -> bool:
    return any(t.name == name and not t.manual for t in result.tests)


def _current(folder: ResultsFolder) -> list[NotebookResult]:
    """The graded results, with the points people gave to written answers."""
    results = [r for r in folder.results() if r.status == Status.GRADED]
    gradebook.apply_manual(Course.of(folder), results)
    return results


def show(
    folder: ResultsFolder,
    student: str | None,
    notebook: str | None = None,
    answer: str | None = None,
    names: dict[str, str] | None = None,
) -> str:
    """`mark` without points: the written answers to grade (no student), or a learner's answers with rubrics."""

    def alias(s: str) -> str:
        return names.get(s, s) if names is not None else s

    results = sorted(_current(folder), key=lambda r: (alias(r.student_id), r.notebook))
    if student is None:
        lines = [
            f"{alias(r.student_id)}  {r.notebook}  {t.name} ({t.max_score:g} points)"
            for r in results
            for t in r.tests
            if t.pending
        ]
        how = "show one with its rubric: python -m autograder mark RESULTS STUDENT NOTEBOOK"
        return "\n".join([*lines, f"{len(lines)} written answer(s) to grade; {how}"])
    mine = [r for r in results if r.student_id == student and (notebook is None or r.notebook == notebook)]
    blocks = [_answer_block(folder, r, t, alias(student)) for r in mine for t in r.tests if _shows(t, answer)]
    return "\n\n".join(blocks) if blocks else f"{alias(student)}: no written answer to show"


def _shows(test, answer: str | None) -> bool:
    return test.manual and (answer is None or test.name == answer)


def _answer_block(folder: ResultsFolder, result: NotebookResult, test, shown: str) -> str:
    """One written answer as `mark` shows it: its state, the learner's text, then its rubric."""
    import textwrap

    if test.pending:
        state = f"to grade, out of {test.max_score:g}"
    else:
        state = f"{test.status}: {test.score:g} / {test.max_score:g}" + (f" ({test.message})" if test.message else "")
    text = grading_view.written_answers(Course.of(folder), result.student_id, result.notebook).get(test.name)
    rubric = rubrics.of_notebook(result.notebook).get(test.name)
    return "\n".join(
        [
            f"{shown} · {result.notebook} · {test.name}: {state}",
            "  Answer:",
            textwrap.indent((text or "(not found)").strip(), "    "),
            "  Rubric (for the grader only):",
            rubrics.shown(rubric) if rubric else "    (none in the source notebook)",
            f"  score it: python -m autograder mark RESULTS {shown} {result.notebook} {test.name} POINTS",
        ]
    )
