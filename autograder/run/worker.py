"""Grade one submission: rebuild it, run it (sandboxed), then run its checks here against its kernel."""

from __future__ import annotations

import contextlib
import functools
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import nbformat

from autograder import paths
from autograder.checks import scoring
from autograder.checks.clock import RemoteError
from autograder.checks.harness import Harness, helpers_of_tests
from autograder.checks.link import KernelLink
from autograder.checks.selfcheck import kernel_message
from autograder.gradebook.feedback import make_inert
from autograder.kernel import launchers, membudget, sandbox
from autograder.kernel.diskwatch import DiskWatch
from autograder.kernel.execute import ExecutionReport, KernelSession, StopKind, not_started
from autograder.kernel.reference import kernel_env
from autograder.material import answers
from autograder.material.markup import strip_hidden
from autograder.results import AUTHORING, NotebookResult, Problem, Status, TrustedVerdict
from autograder.run import grader_memory
from autograder.run.job import Job
from autograder.run.rebuild import rebuild

HOST_FAILURE = "the kernel did not start"
T = TypeVar("T")


def in_kernel_verdicts(nb) -> dict[str, tuple[bool, str]]:
    """Per test cell: passed (no error output) and its message, as nbgrader would see it."""
    return {answers.nbgrader_id(c): (not kernel_message(c), kernel_message(c)) for c in nb.cells if answers.is_test(c)}


def _prepare_workdir(job: Job) -> tuple[Path, Path]:
    """A fresh work folder (with workbook.py) and an empty exchange folder for the grader's calls."""
    work = job.work_root / job.student_id / job.notebook
    export = work.parent / f"{job.notebook}.export"
    for folder in (export, work):
        if folder.exists():  # a re-run: start clean (an error here names what is in the way)
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    shutil.copyfile(paths.WORKBOOK, work / "workbook.py")
    return work, export


TEST_ONLY = "# (a helper of the tests: under grading it runs in the grader, not here)"


def kernel_notebook(nb, source) -> nbformat.NotebookNode:
    """What the learner's kernel runs: the rebuilt notebook without hidden checks or the tests' helpers.

    The helpers are found in the course's source (what the learner's answers read never counts).
    """
    out = nbformat.from_dict(nb)
    helpers = {source.cells[i].source for i in helpers_of_tests(source)}
    for cell in out.cells:
        if cell.cell_type == "code" and answers.grade_id(cell) is None and cell.source in helpers:
            cell.source = TEST_ONLY
    for cell in out.cells:
        if answers.is_test(cell):
            cell.source = strip_hidden(cell.source)
    return out


@dataclass
class Checked:
    """What the trusted checks found: a verdict per test, and the instructor's code that failed."""

    verdicts: dict[str, TrustedVerdict] = field(default_factory=dict)
    authoring: list[str] = field(default_factory=list)


def _trusted_checks(job: Job, source, answer_sources: dict) -> Callable[[Any, float], Checked]:
    """The step run after the notebook, while its kernel lives: every test cell, judged here."""

    def run(client, deadline: float) -> Checked:
        link = KernelLink(client, job.limits.cell_seconds, deadline)
        link.memory_budget = membudget.for_kernel(client.km)  # measured outside the kernel, by the OS
        link.beside = functools.partial(membudget.others, client.km)  # the learner's processes, seen from outside
        with contextlib.suppress(RemoteError):  # a dead link fails every check with its reason
            link.start()
        learner = (job.seed_id or job.student_id, job.notebook)
        harness = Harness(source, answer_sources, link, job.secret, learner)
        with grader_memory.bounded():  # what the learner's claims make the checks allocate fails there
            verdicts = harness.run()
        return Checked(verdicts, list(harness.authoring))

    return run


def authoring_error(result: NotebookResult, problems: list[str]) -> None:
    """A notebook whose checks could not run as written: an error for the instructor, not a grade."""
    result.status = Status.ERROR
    result.score = 0.0
    result.errors.append(f"{AUTHORING}: " + "; ".join(problems[:5]) + " (fix the source notebook, then grade again)")


def _run_sandboxed(
    job: Job, nb, work: Path, export: Path, uid: int, checks: Callable[[Any, float], T]
) -> tuple[ExecutionReport, T | None]:
    """Execute the notebook in the job's sandbox mode, then `checks(client, deadline)`: what they return."""
    try:
        manager = launchers.manager_class(job.launch, work, export, job.limits, uid)
    except OSError as exc:  # the host's doing (a uid it does not map, a full disk): retried, never scored
        return not_started(
            nb, StopKind.SANDBOX_FAILED, f"{HOST_FAILURE}: its sandbox could not be set up here ({exc!r})"
        ), None
    memory_hit, found = False, None
    watch = DiskWatch([work, export], job.limits.disk_bytes, manager.release if manager else lambda: None)
    try:
        with watch, KernelSession(nb, work, kernel_env(), job.limits, manager) as session:
            if session.started:  # before any cell: what of the job's is not the learner's (the rule's checks ask)
                membudget.note_started(session.client.km)
            session.run_cells()
            found = session.run_after(checks)
    finally:
        if manager is not None:
            memory_hit = manager.release()
    report = session.report
    if memory_hit and report.stopped_at is not None:
        report.kind = StopKind.MEMORY
        report.reason = f"the kernel was killed: it went over the {job.limits.memory_bytes / 2**30:g} GiB memory limit"
    if watch.exceeded:
        report.kind = StopKind.DISK
        report.reason = (
            f"the kernel was killed: its files went over the {job.limits.disk_bytes / 2**30:g} GiB disk limit"
        )
        report.stopped_at = report.stopped_at if report.stopped_at is not None else len(nb.cells)
    return report, found


def run_job(job: Job, uid: int = sandbox.SANDBOX_UID) -> tuple[NotebookResult, nbformat.NotebookNode]:
    """Grade one submission; returns the result and the executed (graded) notebook."""
    t0 = time.perf_counter()
    result = NotebookResult(
        student_id=job.student_id, notebook=job.notebook, status=Status.GRADED, content_hash=job.content_hash
    )
    result.seed_id = job.seed_id  # replay draws the same inputs from it
    source = nbformat.read(job.source_path, as_version=4)
    release = nbformat.read(job.release_path, as_version=4)
    nb, result.flags = rebuild(source, release, nbformat.from_dict(job.submitted))
    nb = kernel_notebook(nb, source)
    answer_sources = {answers.grade_id(c): c.source for c in nb.cells if answers.is_answer(c)}
    work, export = _prepare_workdir(job)
    checks = _trusted_checks(job, source, answer_sources)
    report, checked = _run_sandboxed(job, nb, work, export, uid, checks)
    if report.kind.host_failure:  # not the learner's doing: once more, then "retry next run"
        nb = kernel_notebook(rebuild(source, release, nbformat.from_dict(job.submitted))[0], source)
        work, export = _prepare_workdir(job)
        report, checked = _run_sandboxed(job, nb, work, export, uid, checks)
    checked = checked or Checked()  # a kernel that never started: no check ran
    if report.kind.host_failure:
        result.status = Status.ERROR
        result.errors.append(f"{Problem.HOST} {report.reason} (it will be graded again by the next run)")
    elif report.stopped_at is not None:
        result.errors.append(report.reason)
    if report.malformed:
        result.flags.append(f"kernel: sent {report.malformed} malformed message(s), which the grader ignored")
    scoring.score(source, scoring.Facts(in_kernel_verdicts(nb), checked.verdicts, report.reason), result)
    if checked.authoring:
        authoring_error(result, checked.authoring)
    result.seconds = round(time.perf_counter() - t0, 3)
    result.timings = {k: round(v, 3) for k, v in report.phases.items()}
    for cell in nb.cells:  # nbgrader reads a number a test cell shows as partial credit: only text stays
        if answers.is_test(cell):
            cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") in ("stream", "error")]
    make_inert(nb)
    for folder in (work, export):  # judged: nothing the learner wrote stays on the host
        sandbox.remove_tree(folder)
    return result, nb
