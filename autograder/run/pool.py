"""The grading workers: each one's set-up, the pool they run in, and the jobs a dying worker took down.

Workers are forked from a server that imported torch and autograder.run.worker (never from the
grade command's own process, which never imports torch); a job whose worker dies is run again
alone, and if its own worker dies again it alone gets an error row: never the run.
"""

from __future__ import annotations

import multiprocessing
import os
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from autograder.kernel import sandbox
from autograder.results import NotebookResult, Problem, Status, clip
from autograder.run import interrupt, runlock

if TYPE_CHECKING:
    from autograder.run.job import Job

# autograder.run.worker (torch) is imported where used: only a worker imports it

WORKER_DIED = f"{Problem.GRADER}: the grader's worker process for this notebook died (out of memory or killed)"


def init_worker(environ: dict[str, str]) -> None:
    """A worker: this run's environment (not the fork server's, as it was when it started), one thread."""
    import gc

    # what the fork server imported (torch) is never collected here, so no collection writes to (and
    # copies) the pages this worker shares with the server and the other workers
    gc.freeze()
    os.environ.clear()
    os.environ.update(environ)
    import ctypes
    import signal

    import torch

    # dies with its fork server, which ends with this run's command: no worker outlives an interrupted run
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG

    interrupt.ignore_in_worker()  # Ctrl-C: the main process says how to resume, once
    torch.set_num_threads(1)  # the checks' oracles run single-threaded, as the kernels do (OMP_NUM_THREADS=1)


def run_one(job: Job, slot: int, uid_base: int = sandbox.SANDBOX_UID):
    """Worker entry point (in a child process): never raises."""
    from autograder.run.worker import run_job

    try:
        return run_job(job, uid=runlock.job_uid(uid_base, slot))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - one submission must not stop the batch (SystemExit included)
        where = "".join(traceback.format_exception(exc)[-3:]).strip().replace("\n", " | ")  # ends with the exception
        return error_row(job, f"{Problem.GRADER}: {where}"), None


def error_row(job: Job, reason: str) -> NotebookResult:
    """A job the grader could not finish: its row, saved with its content hash (graded again by the next run)."""
    return NotebookResult(
        student_id=job.student_id,
        notebook=job.notebook,
        status=Status.ERROR,
        errors=[clip(reason, 1500)],
        content_hash=job.content_hash,
    )


def _workers_context() -> multiprocessing.context.BaseContext:
    """Workers forked from a server that has imported torch and the worker, and done nothing else.

    Not forked from this process (its threads, tqdm's and ZeroMQ's, may hold locks) and not
    spawned: forked workers share the server's pages of torch (about 150 MB each, counted
    once), and the server has run no torch op, so no thread pool is forked mid-use.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["torch", "autograder.run.worker"])
    if _pool_helpers not in interrupt._HELPERS:
        interrupt.kill_on_interrupt(_pool_helpers)
    return context


def _pool_helpers() -> list[int]:
    """The pid of multiprocessing's fork server, if started: Ctrl-C kills it, and its workers die with it."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    return [pid] if isinstance(pid, int) and pid > 0 else []


def _in_pool(workers: int, jobs: list[tuple[int, Job]], uid_base: int, done) -> list[tuple[int, Job]]:
    """Run jobs in a pool of workers; the jobs whose worker died (the pool broke) are returned."""
    broken: list[tuple[int, Job]] = []
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_workers_context(),
        initializer=init_worker,
        initargs=(dict(os.environ),),
    ) as pool:
        futures = {pool.submit(run_one, job, i, uid_base): (i, job) for i, job in jobs}
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except BrokenProcessPool:
                broken.append(futures[future])
                continue
            done(*outcome)
    return broken


def parallel(workers: int, todo: list[Job], uid_base: int, done: Callable[..., None]) -> None:
    """Jobs in parallel (at most `workers` at once); those a dying worker took down are re-run one by one,
    each in its own worker. `done(result, executed)` is called in this process as each job finishes.

    A job whose own worker dies again gets an error row: it alone is lost, never the run.
    """
    broken = _in_pool(min(workers, len(todo)), list(enumerate(todo)), uid_base, done)
    for slot, job in sorted(broken, key=lambda entry: entry[0]):
        if _in_pool(1, [(slot, job)], uid_base, done):
            done(error_row(job, WORKER_DIED), None)
