"""The course gradebook: nbgrader autograde records every graded notebook, one writer only.

Workers execute submissions in parallel; this stage, in the main process, copies the
executed notebooks into the course folder and runs ``nbgrader autograde --no-execute``
per notebook, so nbgrader records every test cell into its sqlite gradebook with a single
writer. The score, which comes from the trusted checks run in the grader's process
alone, is then stored as the grade's manual score, so the gradebook, nbgrader's own
exports and the feedback all show the final grade.
"""

from __future__ import annotations

import datetime
import json
import re
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from autograder import paths
from autograder.gradebook import coursecache
from autograder.gradebook.course import Course, NbgraderError
from autograder.gradebook.course_folder import RELEASE, SUBMITTED, CourseFolder
from autograder.results import GRADED_BY_HAND, NO_ANSWER, NotebookResult, Status, write_json_atomic


def prepare(course: Course, names: list[str]) -> None:
    """Config, then sources, student versions and gradebook entries of these notebooks (only these).

    A new course folder gets them from the machine's course cache (autograder.gradebook.coursecache:
    built once per version of the sources); one whose gradebook already exists has a
    notebook that is new or changed generated in place, by nbgrader, so that nbgrader
    updates its own records. `.prepared.json` holds each notebook's cache key.
    """
    course.write_config()
    stamp = course.prepared_path
    try:
        prepared = json.loads(stamp.read_text()) if course.db_path.exists() else {}
    except (OSError, ValueError):
        prepared = {}
    prepared = prepared if isinstance(prepared, dict) else {}
    wanted = {name: coursecache.key([name]) for name in names}
    stale = [name for name in names if prepared.get(name) != wanted[name]]
    if not stale:
        return
    if course.db_path.exists():
        for name in stale:
            course.add_source(name)
        course.generate_assignments(stale)
    else:
        coursecache.materialise(stale, course.root)
    prepared.update({name: wanted[name] for name in stale})
    write_json_atomic(stamp, prepared)


def release_path(course: CourseFolder, name: str) -> Path:
    """The student version nbgrader generated for this course."""
    return course.format_path(RELEASE, name, notebook=name)


def submit(course: CourseFolder, result: NotebookResult, executed: nbformat.NotebookNode, handed_in: str = "") -> None:
    """Place an executed notebook where nbgrader autograde expects a submission.

    handed_in: its submission time (ISO 8601), written as nbgrader's timestamp.txt, which
    autograde records and formgrader shows; none known, none left from an earlier one.
    """
    course.format_path(SUBMITTED, result.notebook, result.student_id).mkdir(parents=True, exist_ok=True)
    nbformat.write(executed, course.format_path(SUBMITTED, result.notebook, result.student_id, result.notebook))
    shutil.copyfile(paths.WORKBOOK, course.helper_path(SUBMITTED, result.notebook, result.student_id))
    stamp = course.timestamp_path(result.student_id, result.notebook)
    if handed_in:
        stamp.write_text(_utc(handed_in).strftime("%Y-%m-%d %H:%M:%S.%f UTC") + "\n", encoding="utf-8")
    else:
        stamp.unlink(missing_ok=True)


def _utc(text: str) -> datetime.datetime:
    """An ISO 8601 time as the naive UTC datetime nbgrader's gradebook stores."""
    moment = datetime.datetime.fromisoformat(text)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


def _handed_in(course: CourseFolder, result: NotebookResult) -> datetime.datetime | None:
    """The time in the submission's timestamp.txt (written by submit), or None."""
    stamp = course.timestamp_path(result.student_id, result.notebook)
    try:
        return _utc(stamp.read_text(encoding="utf-8").strip().removesuffix(" UTC"))
    except (OSError, ValueError):
        return None


def record_late(course: CourseFolder | None, results: list[NotebookResult], due: Mapping[str, str]) -> None:
    """Each graded result's late work in nbgrader's own fields, so its exports and pages agree with ours.

    due: each notebook's due date for everyone (ISO 8601; late.toml's [due]). The assignment
    gets it; a learner's later one is the submission's extension; the submission time and
    our penalty (result.penalty, after hand grades and overrides) go on the submission, so
    `nbgrader export` gives score = raw_score - late_submission_penalty, as grades.csv does.
    """
    graded = [r for r in results if r.status == Status.GRADED]
    if course is None or not graded or not course.db_path.exists():
        return
    with course.gradebook() as gb:
        for result in graded:
            try:
                assignment = gb.find_assignment(result.notebook)
                submission = gb.find_submission(result.notebook, result.student_id)
                notebook = gb.find_submission_notebook(result.notebook, result.notebook, result.student_id)
            except MissingEntry:
                continue
            base = _utc(due[result.notebook]) if due.get(result.notebook) else None
            assignment.duedate = base
            own = _utc(result.duedate) if result.duedate else None
            submission.extension = own - base if own and base and own > base else None
            submission.timestamp = _handed_in(course, result)  # as formgrader reads it: the two must match
            notebook.late_submission_penalty = result.penalty or None
        gb.db.commit()


def restore_autograde() -> None:
    """nbgrader's own autograde, which the course config replaces by a refusal for formgrader's button."""
    from nbgrader.apps import api

    api.NbGraderAPI.autograde = getattr(api.NbGraderAPI.autograde, "__wrapped__", api.NbGraderAPI.autograde)


class Session:
    """nbgrader's own API, in this process, on the course folder (no execution: workers ran it)."""

    def __init__(self, course: CourseFolder) -> None:
        from nbgrader.apps import NbGraderAPI
        from traitlets.config import Config

        from autograder.gradebook.nbgrader_ext import FeedbackExporter, check_metadata_once, one_engine_per_database

        check_metadata_once()
        one_engine_per_database()
        config = course.load_config()  # with the course's own exchange
        restore_autograde()  # the config turns formgrader's Autograde off; this is the sandboxed grader
        extra = Config()
        extra.Execute.enabled = False  # the notebook was executed, sandboxed, by a worker
        extra.ClearOutput.enabled = False
        extra.SandboxedGradingOnly.enabled = False  # this is the sandboxed grader: formgrader's button stays off
        extra.GenerateFeedback.exporter_class = FeedbackExporter  # the same page, without a re-parse
        config.merge(extra)
        self.api = NbGraderAPI(config=config)
        # nbgrader's own SQLAlchemy usage warns on every submission; it is not ours to fix
        warnings.filterwarnings("ignore", module="nbgrader")
        warnings.filterwarnings("ignore", message=".*not in session.*")

    def autograde(self, name: str, student: str) -> None:
        """nbgrader autograde of one submission: it scores every test cell from its outputs."""
        self._check(self.api.autograde(name, student, force=True, create=True), "autograde", name, student)

    def generate_feedback(self, name: str, student: str) -> None:
        """nbgrader generate_feedback for one submission."""
        self._check(self.api.generate_feedback(name, student, force=True), "generate_feedback", name, student)

    @staticmethod
    def _check(outcome: dict, what: str, name: str, student: str) -> None:
        if not outcome.get("success"):
            said = f"nbgrader {what} {name} for {student} failed: {outcome.get('error', '')[-2000:]}"
            cause = log_cause(outcome.get("log", ""))  # nbgrader's own error says only "see the above traceback"
            raise NbgraderError(f"{said} | the cause, from nbgrader's log: {cause}" if cause else said)


EXCEPTION_LINE = re.compile(r"^\s*((?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Exit|NotFound)\b.*)$", re.M)


def log_cause(log: str) -> str:
    """The last exception line an nbgrader log holds (the failure its converters caught), or ""."""
    found = [m.group(1).strip() for m in EXCEPTION_LINE.finditer(log or "")]
    found = [line for line in found if not line.startswith("nbgrader.converters.base.NbGraderException")]
    return found[-1][:600] if found else ""


def reconcile(course: CourseFolder, results: list[NotebookResult]) -> None:
    """Store each test's points (decided by autograder.checks.scoring) as nbgrader's manual score; keep nbgrader's view."""
    with course.gradebook() as gb:
        for result in results:
            for test in result.tests:
                if test.manual:  # a person's score: never written here
                    continue
                grade = _find(gb, result, test.name)
                if grade is None:  # not a scoring matter: the points stand, nbgrader's copy of them is missing
                    result.errors.append(f"{test.name}: missing from the nbgrader gradebook; its points are not there")
                    continue
                test.nbgrader_passed = grade.auto_score is not None and grade.auto_score >= grade.max_score
                grade.manual_score = test.score
                grade.needs_manual_grade = False  # the checks decided: nothing for formgrader to review
        gb.db.commit()


def _find(gb: Gradebook, result: NotebookResult, test: str):
    try:
        return gb.find_grade(test, result.notebook, result.notebook, result.student_id)
    except MissingEntry:
        return None


def apply_manual(course: CourseFolder | None, results: list[NotebookResult]) -> None:
    """Give each written answer the points a person entered in nbgrader's gradebook (formgrader or `mark`).

    An answer left as handed out is nbgrader's automatic 0 (NO_ANSWER), not one to grade.
    """
    pending = [r for r in results if any(t.manual for t in r.tests)]
    if not pending or course is None or not course.db_path.exists():
        return
    with course.gradebook() as gb:
        for result in pending:
            for test in (t for t in result.tests if t.manual):
                grade = _find(gb, result, test.name)
                test.extra_credit = float(grade.extra_credit or 0) if grade is not None else 0.0  # nbgrader adds it
                if grade is not None and grade.manual_score is not None:
                    test.score, test.status = float(grade.manual_score), GRADED_BY_HAND
                    test.message = _comment(gb, result, test.name)
                elif grade is not None and grade.auto_score == 0 and not grade.needs_manual_grade:
                    # left as handed out: nbgrader scores it 0 and formgrader does not list it
                    test.score, test.status, test.message = 0.0, NO_ANSWER, "No answer given: 0 points."
            result.total()


def _comment(gb: Gradebook, result: NotebookResult, name: str) -> str:
    """The grader's comment on a written answer, if any."""
    try:
        return gb.find_comment(name, result.notebook, result.notebook, result.student_id).manual_comment or ""
    except MissingEntry:
        return ""


def set_manual(
    course: CourseFolder, student: str, notebook: str, answer: str, points: float, comment: str = ""
) -> float:
    """Store a person's score (and comment) for one written answer; returns the answer's maximum."""
    with course.gradebook() as gb:
        try:
            grade = gb.find_grade(answer, notebook, notebook, student)
        except MissingEntry:
            raise KeyError(f"no graded answer {answer!r} of {student!r} in {notebook!r}") from None
        if grade.cell_type != "markdown":
            raise ValueError(f"{answer!r} is graded automatically; only written answers are scored by hand")
        if not 0 <= points <= grade.max_score:
            raise ValueError(f"{points:g} points is outside 0..{grade.max_score:g} for {answer!r}")
        grade.manual_score = points
        grade.needs_manual_grade = False  # as formgrader does when a person scores it
        if comment:
            comment_row = gb.find_comment(answer, notebook, notebook, student)
            comment_row.manual_comment = comment
        gb.db.commit()
        return float(grade.max_score)
