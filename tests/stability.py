"""Grading one submission under many course keys: its notebook runs once, its checks once per key.

What a key changes is the hidden inputs the checks draw (autograder.checks.coursekey.derive_seed),
not what the learner's notebook defines. So each submission's kernel runs its notebook once
(rebuilt and sandboxed exactly as `grade` does, autograder.run.worker), and then the trusted
harness judges it once per key against that same live kernel, each time with fresh inputs
of that key's own: K keys cost one notebook run plus K rounds of checks, not K runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext

import nbformat

from autograder.checks import scoring
from autograder.checks.clock import RemoteError
from autograder.checks.harness import Harness
from autograder.checks.link import KernelLink
from autograder.kernel import launchers, membudget, sandbox
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.run import runlock
from autograder.run.rebuild import rebuild
from autograder.run.worker import Job, _prepare_workdir, _run_sandboxed, in_kernel_verdicts, kernel_notebook


def keys(count: int, label: str = "stability") -> list[bytes]:
    """`count` course keys, the same on every run (a failure names the key's index: reproducible)."""
    return [hashlib.sha256(f"{label}-{i}".encode()).digest() for i in range(count)]


def _judge_all(job: Job, source, answer_sources: dict, keyring: list[bytes]):
    def run(client, deadline: float) -> list[dict]:
        link = KernelLink(client, job.limits.cell_seconds, deadline)
        link.memory_budget = membudget.for_kernel(client.km)
        with contextlib.suppress(RemoteError):
            link.start()
        verdicts = []
        for key in keyring:
            link.deadline = time.monotonic() + job.limits.notebook_seconds  # each key's checks: a notebook's time
            verdicts.append(Harness(source, answer_sources, link, key, (job.student_id, job.notebook)).run())
        return verdicts

    return run


def grade_under_keys(job: Job, keyring: list[bytes], uid: int) -> list[NotebookResult]:
    """The submission's result under each key (in order); its notebook executed once."""
    source = nbformat.read(job.source_path, as_version=4)
    release = nbformat.read(job.release_path, as_version=4)
    nb, flags = rebuild(source, release, nbformat.from_dict(job.submitted))
    nb = kernel_notebook(nb, source)
    answer_sources = {answers.grade_id(c): c.source for c in nb.cells if answers.is_answer(c)}
    work, export = _prepare_workdir(job)
    try:
        report, judged = _run_sandboxed(job, nb, work, export, uid, _judge_all(job, source, answer_sources, keyring))
    finally:
        for folder in (work, export):
            sandbox.remove_tree(folder)
    results = []
    for found in judged or [{} for _ in keyring]:  # a kernel that never started: no check ran
        result = NotebookResult(student_id=job.student_id, notebook=job.notebook, status="graded", flags=list(flags))
        if report.stopped_at is not None:
            result.errors.append(report.reason)
        scoring.score(source, scoring.Facts(in_kernel_verdicts(nb), found, report.reason), result)
        results.append(result)
    return results


def _one(job: Job, keyring: list[bytes], uid: int):
    try:
        return job.student_id, job.notebook, grade_under_keys(job, keyring, uid), ""
    except BaseException as exc:  # noqa: BLE001 - reported as that submission's failure
        return job.student_id, job.notebook, [], repr(exc)


def _init() -> None:
    import torch

    torch.set_num_threads(1)


def run(jobs: list[tuple[Job, list[bytes]]], how: launchers.Launcher, workers: int = 2) -> dict[str, tuple[list, str]]:
    """Every (job, keys) in a pool of spawned workers, as `grade` runs its jobs: 'student/notebook' -> results, error."""
    uids = runlock.uid_block() if how.own_uid else nullcontext(sandbox.SANDBOX_UID)
    out = {}
    with uids as uid_base, how.serving(jobs[0][0].work_root) as ready:
        launch = ready()
        for job, _ in jobs:
            job.launch = launch
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=spawn, initializer=_init) as pool:
            futures = [
                pool.submit(_one, job, keyring, runlock.job_uid(uid_base, i)) for i, (job, keyring) in enumerate(jobs)
            ]
            for future in futures:
                student, notebook, results, error = future.result()
                out[f"{student}/{notebook}"] = (results, error)
    return out
