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


def run_job(job: Job, uid: int = sandbox.SANDBOX_UID) -> tuple[NotebookResult, nbformat.NotebookNode]:
    """Grade one submission; returns the result and the executed (graded) notebook."""
    t0 = time.perf_counter()
    result = NotebookResult(job.student_id, job.notebook, "graded", content_hash=job.content_hash)
    source = nbformat.read(job.source_path, as_version=4)
    release = nbformat.read(job.release_path, as_version=4)
    nb, result.flags = rebuild(source, release, nbformat.from_dict(job.submitted))
    work = job.work_root / job.student_id / job.notebook
    shutil.rmtree(work.parent / f"{job.notebook}.export", ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    export = work.parent / f"{job.notebook}.export"
    export.mkdir()
    shutil.copyfile(paths.WORKBOOK, work / "workbook.py")
    manager = None if job.unsafe else sandbox.kernel_manager_class(work, export, job.limits, uid)
    memory_hit = False
    try:
        report = execute(nb, work, grading_env(export), job.limits, kernel_manager_class=manager)
    finally:
        if manager is not None:
            memory_hit = manager.release()
    if memory_hit and report.stopped_at is not None:
        report.reason = f"the kernel was killed: it went over the {job.limits.memory_bytes / 2**30:g} GiB memory limit"
    if report.stopped_at is not None:
        result.errors.append(report.reason)
    kernel = in_kernel_verdicts(nb)
    t_judge = time.perf_counter()
    trusted = judge(job.reference_records, export, list(kernel))
    result.flags += suspicious_records(export)
    points = {
        answers.grade_id(c): float(c.metadata.nbgrader.get("points", 0)) for c in source.cells if answers.is_test(c)
    }
    hidden = {answers.grade_id(c): "### BEGIN HIDDEN TESTS" in c.source for c in source.cells if answers.is_test(c)}
    for test, (k_ok, message) in kernel.items():
        t_ok = trusted[test].passed
        if k_ok and not t_ok:
            result.flags.append(
                f"{test}: passed in the kernel but its recorded results do not match "
                f"the reference ({trusted[test].detail}); scored 0"
            )
            message = f"the results this test recorded do not match the reference ({trusted[test].detail})"
        ok = k_ok and t_ok
        result.tests.append(
            TestResult(
                test,
                points[test] if ok else 0.0,
                points[test],
                "passed" if ok else "failed",
                message,
                hidden[test],
                k_ok,
                t_ok,
            )
        )
    result.total()
    result.seconds = round(time.perf_counter() - t0, 3)
    result.timings = {k: round(v, 3) for k, v in report.phases.items()}
    result.timings["judge"] = round(time.perf_counter() - t_judge, 3)
    return result, nb
