"""The course gradebook: nbgrader autograde records every graded notebook, one writer only.

Workers execute submissions in parallel; this stage, in the main process, copies the
executed notebooks into the course folder and runs ``nbgrader autograde --no-execute``
per notebook, so nbgrader records every test cell into its sqlite gradebook with a single
writer. The score, which comes from the trusted checks run in the grader's process
alone, is then stored as the grade's manual score, so the gradebook, nbgrader's own
exports and the feedback all show the final grade.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from autograder import paths
from autograder.course import COURSE_ID, Course, NbgraderError, sources_digest
from autograder.results import NotebookResult


def prepare(course: Course, names: list[str]) -> None:
    """Config, sources and generate_assignment (once per version of the sources)."""
    course.write_config()
    stamp = course.root / ".sources-digest"
    digest = sources_digest(names)
    if stamp.exists() and stamp.read_text() == digest:
        return
    for name in names:
        course.add_source(name)
        course.generate_assignment(name)
    stamp.write_text(digest)


def release_path(course: Course, name: str) -> Path:
    """The student version nbgrader generated for this course."""
    return course.root / "release" / name / f"{name}.ipynb"


def submit(course: Course, result: NotebookResult, executed: nbformat.NotebookNode) -> None:
    """Place an executed notebook where nbgrader autograde expects a submission."""
    folder = course.root / "submitted" / result.student_id / result.notebook
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(executed, folder / f"{result.notebook}.ipynb")
    shutil.copyfile(paths.WORKBOOK, folder / "workbook.py")


class Session:
    """nbgrader's own API, in this process, on the course folder (no execution: workers ran it)."""

    def __init__(self, course: Course) -> None:
        from nbgrader.apps import NbGraderAPI
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config()
        extra = Config()
        extra.Execute.enabled = False  # the notebook was executed, sandboxed, by a worker
        extra.ClearOutput.enabled = False
        extra.Exchange.root = str(course.root / ".exchange")
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
            raise NbgraderError(f"nbgrader {what} {name} for {student} failed: {outcome.get('error', '')[-2000:]}")


def reconcile(course: Course, results: list[NotebookResult]) -> None:
    """Read nbgrader's verdicts, combine them with the trusted ones, store the final scores."""
    with Gradebook(f"sqlite:///{course.db_path}", COURSE_ID) as gb:
        for result in results:
            for test in result.tests:
                grade = _find(gb, result, test.name)
                if grade is None:
                    result.flags.append(f"{test.name}: missing from the nbgrader gradebook; scored 0")
                test.nbgrader_passed = bool(
                    grade and grade.auto_score is not None and grade.auto_score >= grade.max_score
                )
                _settle(result, test)
                if grade is not None:
                    grade.manual_score = test.score
            result.total()
        gb.db.commit()


def _find(gb: Gradebook, result: NotebookResult, test: str):
    try:
        return gb.find_grade(test, result.notebook, result.notebook, result.student_id)
    except MissingEntry:
        return None


def _settle(result: NotebookResult, test) -> None:
    """The score is the trusted verdict's: nbgrader's (from the kernel's visible run) is kept for the record."""
    passed = bool(test.trusted_passed)
    test.score = test.max_score if passed else 0.0
    test.status = "passed" if passed else "failed"
