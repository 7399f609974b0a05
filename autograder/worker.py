"""Grade one submission: rebuild it, run it (sandboxed), and judge its records outside the kernel."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import answers, paths, sandbox
from autograder.execute import execute
from autograder.limits import Limits
from autograder.rebuild import rebuild
from autograder.reference import grading_env
from autograder.results import NotebookResult, TestResult
from autograder.verdict import judge, suspicious_records


@dataclass
class Job:
    """Everything a worker needs to grade one notebook of one learner."""

    student_id: str
    notebook: str
    submitted: dict  # the learner's notebook as JSON
    content_hash: str
    source_path: Path
    release_path: Path
    reference_records: Path
    work_root: Path
    limits: Limits
    unsafe: bool = False
    isolate: bool = True  # False: the reduced sandbox (own uid, no namespaces)
    forkserver: str = ""  # socket of the run's kernel fork server (autograder.preload), if any


def kernel_message(cell) -> str:
    """A learner-facing message for a failed test cell (no traceback, so no hidden source)."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            ename, evalue = out.get("ename", "Error"), str(out.get("evalue", ""))
            if ename == "NotImplementedError":
                return "NotImplementedError: an answer cell this test uses is not implemented yet"
            if ename == "CheckFailure":
                return evalue
            return f"{ename}: {evalue}"[:2000]
    return ""


def in_kernel_verdicts(nb) -> dict[str, tuple[bool, str]]:
    """Per test cell: passed (no error output) and its message, as nbgrader would see it."""
    return {answers.grade_id(c): (not kernel_message(c), kernel_message(c)) for c in nb.cells if answers.is_test(c)}


def _prepare_workdir(job: Job) -> tuple[Path, Path]:
    """A fresh work folder (with workbook.py) and an empty records folder for this job."""
    work = job.work_root / job.student_id / job.notebook
    export = work.parent / f"{job.notebook}.export"
    for folder in (export, work):
        if folder.exists():  # a re-run: start clean (an error here names what is in the way)
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    shutil.copyfile(paths.WORKBOOK, work / "workbook.py")
    return work, export


def _run_sandboxed(job: Job, nb, work: Path, export: Path, uid: int):
    """Execute the rebuilt notebook in the sandbox (or unsandboxed with --unsafe)."""
    manager = (
        None if job.unsafe else sandbox.kernel_manager_class(work, export, job.limits, uid, job.isolate, job.forkserver)
    )
    memory_hit = False
    try:
        report = execute(nb, work, grading_env(export), job.limits, kernel_manager_class=manager)
    finally:
        if manager is not None:
            memory_hit = manager.release()
    if memory_hit and report.stopped_at is not None:
        report.reason = f"the kernel was killed: it went over the {job.limits.memory_bytes / 2**30:g} GiB memory limit"
    return report


def _score_tests(source, kernel: dict, trusted: dict, result: NotebookResult) -> None:
    """A test scores only if nbgrader's verdict and the trusted verdict both pass it."""
    graded = [c for c in source.cells if answers.is_test(c)]
    points = {answers.grade_id(c): float(c.metadata.nbgrader.get("points", 0)) for c in graded}
    hidden = {answers.grade_id(c): "### BEGIN HIDDEN TESTS" in c.source for c in graded}
    for test, (k_ok, message) in kernel.items():
        t_ok = trusted[test].passed
        if k_ok and not t_ok:
            detail = trusted[test].detail
            result.flags.append(
                f"{test}: passed in the kernel but its recorded results do not match the reference ({detail}); scored 0"
            )
            message = f"the results this test recorded do not match the reference ({detail})"
        ok = k_ok and t_ok
        score = points[test] if ok else 0.0
        status = "passed" if ok else "failed"
        result.tests.append(TestResult(test, score, points[test], status, message, hidden[test], k_ok, t_ok))
    result.total()


def run_job(job: Job, uid: int = sandbox.SANDBOX_UID) -> tuple[NotebookResult, nbformat.NotebookNode]:
    """Grade one submission; returns the result and the executed (graded) notebook."""
    t0 = time.perf_counter()
    result = NotebookResult(job.student_id, job.notebook, "graded", content_hash=job.content_hash)
    source = nbformat.read(job.source_path, as_version=4)
    release = nbformat.read(job.release_path, as_version=4)
    nb, result.flags = rebuild(source, release, nbformat.from_dict(job.submitted))
    work, export = _prepare_workdir(job)
    report = _run_sandboxed(job, nb, work, export, uid)
    if report.stopped_at is not None:
        result.errors.append(report.reason)
    kernel = in_kernel_verdicts(nb)
    t_judge = time.perf_counter()
    trusted = judge(job.reference_records, export, list(kernel))
    result.flags += suspicious_records(export)
    _score_tests(source, kernel, trusted, result)
    result.seconds = round(time.perf_counter() - t0, 3)
    result.timings = {k: round(v, 3) for k, v in report.phases.items()}
    result.timings["judge"] = round(time.perf_counter() - t_judge, 3)
    return result, nb
