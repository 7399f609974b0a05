"""The gradebook stage: each graded result into nbgrader's gradebook, with its feedback page.

In the grade command's main process only (sqlite wants one writer), one result at a time, as
each job finishes. What people decided (written answers' points, overrides, late penalties) is
put on a result in one place, `apply_decisions`, for a feedback page and for the reports alike.
"""

from __future__ import annotations

import copy
import traceback
from typing import TYPE_CHECKING

import nbformat

from autograder.gradebook import feedback, grading_view
from autograder.gradebook.course import Course
from autograder.results import NotebookResult, Problem, Status, clip
from autograder.results_folder import ResultsFolder
from autograder.run import interrupt, late, overrides

if TYPE_CHECKING:
    from autograder.gradebook.records import Session

# autograder.gradebook.records (nbgrader) is imported where used: a run starts its fork server
# first, and the server imports torch while the grader imports nbgrader.


def apply_decisions(folder: ResultsFolder, course: Course, results: list[NotebookResult]) -> None:
    """What people decided, onto `results` (in place) and into the gradebook, in this order."""
    from autograder.gradebook import records as gradebook

    gradebook.apply_manual(course, results)  # written answers: the points a person gave, if any
    overrides.tell(overrides.apply(folder, course, results))  # tests' scores an instructor set
    late.apply(folder, results)  # due dates and penalties, last: they apply to the final score
    gradebook.record_late(course, results, late.due_dates(folder))  # nbgrader's export and pages agree


class Recorder:
    """The gradebook stage, in the main process only (sqlite wants one writer): one result at a time.

    nbgrader autograde scores the executed notebook, the trusted verdicts are reconciled
    into the gradebook, the feedback is written, and the saved result is marked 'recorded'.
    Run as each job finishes, this overlaps with the jobs still running.
    """

    def __init__(self, folder: ResultsFolder, course: Course) -> None:
        self.folder, self.course = folder, course
        self.session: Session | None = None
        self.unfollowed = 0  # pages rewritten that an anonymous formgrader view still shows as they were

    def record(self, result: NotebookResult, digest: str, executed=None) -> None:
        """Record one result; `executed` is its executed notebook (read back from the saved state if None)."""
        if result.status != Status.GRADED:
            return
        from autograder.gradebook import records as gradebook
        from autograder.run import handgrades

        if self.session is None:
            self.session = gradebook.Session(self.course)
        if executed is None:
            executed = nbformat.read(self.folder.executed_path(result.student_id, result.notebook), as_version=4)
        before = handgrades.answers_before(self.course, result)
        gradebook.submit(self.course, result, executed, late.handed_in(self.folder, result))
        self.session.autograde(result.notebook, result.student_id)
        handgrades.revisit(self.folder, self.course, result, before)  # a changed written answer needs a person again
        gradebook.reconcile(self.course, [result])
        shown = copy.deepcopy(result)  # the saved result keeps its own scores; its page shows people's
        apply_decisions(self.folder, self.course, [shown])  # the page's header shows the late penalty too
        feedback.generate(self.course, self.session, shown, self.folder)
        self._follow(result)
        self.folder.save(result, digest, recorded=True)

    def refresh_feedback(self, result: NotebookResult) -> None:
        """Rewrite one recorded submission's feedback page (a person has graded its written answers)."""
        from autograder.gradebook import records as gradebook

        if self.session is None:
            self.session = gradebook.Session(self.course)
        feedback.generate(self.course, self.session, result, self.folder)
        self._follow(result)

    def _follow(self, result: NotebookResult) -> None:
        """formgrader's view shows the page's grade too (grading_view.follow); an anonymous one is counted."""
        if not grading_view.follow(self.folder, result.student_id, result.notebook):
            self.unfollowed += 1


def record_or_error(recorder: Recorder, result: NotebookResult, digest: str, executed=None) -> None:
    """Record one result; if nbgrader fails on it, save it as an error (not retried until it changes)."""
    try:
        recorder.record(result, digest, executed)
    except Exception as exc:  # noqa: BLE001 - one submission nbgrader cannot handle must not stop the batch
        if interrupt.REQUESTED.is_set():  # Ctrl-C inside nbgrader: left unrecorded, the next run records it
            raise KeyboardInterrupt from exc
        result.status = Status.ERROR
        said = "".join(traceback.format_exception_only(exc)).strip()  # the exception itself, never cut off
        result.errors.append(clip(f"{Problem.GRADER} while recording the grade and feedback: {said}", 1500))
        recorder.folder.save(result, digest)


def record_left_over(folder: ResultsFolder, recorder: Recorder) -> None:
    """Record what a killed run left unrecorded (graded and saved, not yet in the gradebook)."""
    for state in list(folder.states().values()):
        if state.result.status == Status.GRADED and not state.recorded:
            record_or_error(recorder, copy.deepcopy(state.result), state.digest)
