"""grade: SUBMISSIONS -> RESULTS (grades.csv, results.json, feedback/), resumable and parallel.

Stages, in order: intake (find and validate) -> prepare (course, release) -> run jobs
(rebuild, sandboxed execution in a kernel forked from a preloaded server, then every
test cell run in the worker against that kernel (autograder.harness); in parallel; each
finished job saved at once) -> gradebook
(nbgrader autograde, one writer, reconcile) -> feedback (nbgrader generate_feedback)
-> reports.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import answers, feedback, gradebook, intake, paths, preload, sandbox
from autograder.course import Course, sources_digest
from autograder.limits import Limits
from autograder.report import histogram, summary, table, write_reports
from autograder.results import NotebookResult, write_json_atomic
from autograder.worker import Job, run_job

ENGINE_VERSION = "2"  # 2: checks run in the grader, against the kernel


@dataclass
class Options:
    """What a grading run was asked to do."""

    submissions: Path
    out: Path
    jobs: int = 1
    unsafe: bool = False
    limits: Limits = Limits()
    quiet: bool = False
    isolate: bool = True  # False: the reduced sandbox (Gradescope), see sandbox.user_only_command
    work_root: Path | None = None  # where kernels run (default RESULTS/.work)

    @property
    def work_dir(self) -> Path:
        """Where the kernels' working folders go."""
        return self.work_root or self.out / ".work"


def _state_path(out: Path, student: str, notebook: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in notebook)
    return out / ".state" / student / f"{safe}.json"


def _load_state(out: Path) -> dict[str, dict]:
    states = {}
    for path in (out / ".state").glob("*/*.json"):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue  # a torn file cannot exist (atomic writes), but never trust disk blindly
        states[f"{data['result']['student_id']}/{data['result']['notebook']}"] = data
    return states


def _save_state(out: Path, result: NotebookResult, digest: str, executed=None, recorded: bool = False) -> None:
    path = _state_path(out, result.student_id, result.notebook)
    if executed is not None:
        tmp = path.with_suffix(f".ipynb.{os.getpid()}.tmp")
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(executed, tmp)
        os.replace(tmp, path.with_suffix(".ipynb"))
    write_json_atomic(path, {"digest": digest, "recorded": recorded, "result": result.to_dict()})


def _max_points(name: str) -> float:
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    return sum(float(c.metadata.nbgrader.get("points", 0)) for c in nb.cells if answers.is_test(c))


def _jobs(opts: Options, items, course: Course, secret: bytes, states, digest) -> list[Job]:
    todo = []
    for item in items:
        if isinstance(item, NotebookResult):
            continue
        old = states.get(f"{item.student_id}/{item.notebook}")
        if old and old["digest"] == digest and old["result"]["content_hash"] == item.content_hash:
            continue  # unchanged submission, same sources and engine: keep its grade
        todo.append(
            Job(
                item.student_id,
                item.notebook,
                dict(item.nb),
                item.content_hash,
                paths.source_notebook(item.notebook),
                gradebook.release_path(course, item.notebook),
                secret,
                opts.work_dir,
                opts.limits,
                opts.unsafe,
                opts.isolate,
            )
        )
    return todo


def _run_one(job: Job, slot: int):
    """Worker entry point (in a child process): never raises."""
    try:
        job_uid = sandbox.SANDBOX_UID + 1 + slot % 1000
        return run_job(job, uid=job_uid)
    except Exception as exc:  # noqa: BLE001 - one broken submission must not stop the batch
        result = NotebookResult(job.student_id, job.notebook, "error", errors=[f"grader error: {exc!r}"[:500]])
        return result, None


class Recorder:
    """The gradebook stage, in the main process only (sqlite wants one writer): one result at a time.

    nbgrader autograde scores the executed notebook, the trusted verdicts are reconciled
    into the gradebook, the feedback is written, and the saved result is marked 'recorded'.
    Run as each job finishes, this overlaps with the jobs still running.
    """

    def __init__(self, opts: Options, course: Course) -> None:
        self.opts, self.course, self.session = opts, course, None

    def record(self, result: NotebookResult, digest: str, executed=None) -> None:
        """Record one result; `executed` is its executed notebook (read back from the saved state if None)."""
        if result.status != "graded":
            return
        if self.session is None:
            self.session = gradebook.Session(self.course)
        if executed is None:
            saved = _state_path(self.opts.out, result.student_id, result.notebook).with_suffix(".ipynb")
            executed = nbformat.read(saved, as_version=4)
        gradebook.submit(self.course, result, executed)
        self.session.autograde(result.notebook, result.student_id)
        gradebook.reconcile(self.course, [result])
        feedback.generate(self.course, self.session, result, self.opts.out / "feedback")
        _save_state(self.opts.out, result, digest, recorded=True)


def run_jobs(opts: Options, todo: list[Job], digest: str, recorder: Recorder) -> None:
    """Execute jobs (in parallel when jobs > 1); save and record each result as soon as it is done."""
    from tqdm.auto import tqdm

    if not opts.unsafe and sandbox.sweep_orphans(opts.work_dir) and not opts.quiet:
        print("killed the kernels a previous, interrupted run left behind", file=sys.stderr)
    bar = tqdm(total=len(todo), desc="grading", unit="nb", disable=opts.quiet or not todo, file=sys.stderr)

    def done(result: NotebookResult, executed) -> None:
        _save_state(opts.out, result, digest, executed)
        recorder.record(result, digest, executed)
        bar.update()

    fork = bool(todo) and not opts.unsafe and opts.isolate and preload.wanted()
    with preload.running(opts.work_dir) if fork else nullcontext("") as server:
        for job in todo:
            job.forkserver = server
        if opts.jobs <= 1:
            for i, job in enumerate(todo):
                done(*_run_one(job, i))
        else:
            with ProcessPoolExecutor(max_workers=opts.jobs) as pool:
                futures = [pool.submit(_run_one, job, i) for i, job in enumerate(todo)]
                for future in as_completed(futures):
                    done(*future.result())
    bar.close()


def finish(opts: Options, recorder: Recorder) -> list[NotebookResult]:
    """Record what an interrupted run left unrecorded, then write all reports.

    A saved result is 'recorded' once nbgrader has scored it and its feedback exists; a
    run killed before that records it here, next time. Each notebook is recorded once.
    """
    for state in _load_state(opts.out).values():
        if state["result"]["status"] == "graded" and not state.get("recorded"):
            recorder.record(NotebookResult.from_dict(state["result"]), state["digest"])
    results = [NotebookResult.from_dict(s["result"]) for s in _load_state(opts.out).values()]
    write_reports(opts.out, results)
    histogram(results, opts.out / "scores.png")
    return results


def prepare(opts: Options, needed: list[str]) -> tuple[Course, str]:
    """The course folder (nbgrader release); cached in opts.out."""
    names = paths.notebook_names()
    digest = f"{sources_digest(names)}-{ENGINE_VERSION}"
    course = Course(opts.out / ".course", cell_timeout=opts.limits.cell_seconds)
    gradebook.prepare(course, names)
    return course, digest


def grade(opts: Options) -> list[NotebookResult]:
    """Grade every submission; returns all results held in opts.out."""
    known = {
        n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4)))
        for n in paths.notebook_names()
    }
    items = intake.collect(opts.submissions, known)
    needed = sorted({i.notebook for i in items if not isinstance(i, NotebookResult)})
    course, digest = prepare(opts, needed)
    secret = secrets.token_bytes(32)  # hidden inputs of this run: in memory only, never in a file
    for item in items:
        if isinstance(item, NotebookResult):
            if item.notebook in known:
                item.max_score = _max_points(item.notebook)
            _save_state(opts.out, item, digest)
    states = _load_state(opts.out)
    recorder = Recorder(opts, course)
    run_jobs(opts, _jobs(opts, items, course, secret, states, digest), digest, recorder)
    return finish(opts, recorder)


def default_jobs() -> int:
    """All cores."""
    return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    """Grade SUBMISSIONS/<student_id>/<notebook>.ipynb (or <student_id>.zip) into RESULTS."""
    parser = argparse.ArgumentParser(prog="python -m autograder grade", description=main.__doc__)
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="results folder (resumable)")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="parallel kernels (default: all cores)")
    parser.add_argument("--unsafe", action="store_true", help="run learner code without the sandbox")
    parser.add_argument("--cell-timeout", type=int, default=Limits.cell_seconds)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    problem = sandbox.available()
    if problem and not args.unsafe:
        print(
            f"ERROR: no sandbox: {problem}.\nLearner code would run with your privileges. "
            "Install bubblewrap and run as root, or pass --unsafe to grade anyway.",
            file=sys.stderr,
        )
        return 2
    if args.unsafe:
        print("WARNING: --unsafe: learner code runs WITHOUT the sandbox.", file=sys.stderr)
    limits = Limits(cell_seconds=args.cell_timeout)
    opts = Options(args.submissions.resolve(), args.out.resolve(), max(1, args.jobs), args.unsafe, limits, args.quiet)
    t0 = time.perf_counter()
    try:
        results = grade(opts)
    except FileNotFoundError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    print(table(results))
    print(f"\n{summary(results)}")
    print(f"\n{len(results)} row(s) in {opts.out / 'grades.csv'} ({time.perf_counter() - t0:.1f} s)")
    return 0
