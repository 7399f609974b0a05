"""grade: SUBMISSIONS -> RESULTS (grades.csv, results.json, feedback/), resumable and parallel.

Stages, in order: intake (find and validate) -> prepare (course, release) -> run jobs
(rebuild, sandboxed execution in a kernel forked from a preloaded server, then every
test cell run in the worker against that kernel (autograder.checks.harness); in parallel; each
finished job saved at once) -> gradebook
(nbgrader autograde, one writer, reconcile) -> feedback (nbgrader generate_feedback)
-> reports.
"""

from __future__ import annotations

import argparse
import copy
import functools
import multiprocessing
import os
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat

from autograder import paths
from autograder.checks import coursekey
from autograder.gradebook import feedback, grading_view
from autograder.gradebook.course import COURSE_ID, Course, sources_digest
from autograder.kernel import launchers, sandbox
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult, Problem, Status, problems
from autograder.results_folder import ResultsFolder
from autograder.run import assignments, interrupt, late, overrides, runlock, warmup
from autograder.run import shard as sharding
from autograder.run.report import histogram, printable, summary, table, write_reports
from autograder.submissions import canvas_times, ids, intake, roster

if TYPE_CHECKING:
    from autograder.gradebook.records import Session
    from autograder.run.job import Job

# autograder.run.worker (torch) and autograder.gradebook.records (nbgrader) are imported where used: a run
# starts its fork server first, and the server imports torch while the grader imports these.

ENGINE_VERSION = "3"  # 2: checks run in the grader, against the kernel; 3: inputs from the course key


@dataclass(kw_only=True)
class Options:
    """What a grading run was asked to do."""

    submissions: Path
    out: Path
    _: KW_ONLY
    jobs: int = 1
    # how kernels are started, as launchers.choose() picked it (the only place a mode is picked);
    # None: picked there when the run starts, the strongest sandbox that runs here
    sandbox: launchers.Launcher | None = None
    limits: Limits = Limits()
    quiet: bool = False
    work_root: Path | None = None  # where kernels run (default RESULTS/.work)
    shard: sharding.Shard | None = None  # grade only this shard's learners (autograder.run.shard)
    # jobs in this process, not in spawned workers: only for tests that patch the worker's
    # functions (an out-of-memory job would then end the run, and torch is imported here)
    in_process: bool = False
    key_file: Path | None = None  # the course key (coursekey.locate: default $AUTOGRADER_KEY_FILE, build/course.key)
    seed_id: str = ""  # draw hidden inputs for this learner id instead of each submission's (Gradescope)
    similarity: bool = False  # write the similarity report at the end (autograder.run.similarity)
    roster: Path | None = None  # the class roster CSV (autograder.submissions.roster)
    late: Path | None = None  # the late-work policy TOML (autograder.run.late)
    assignment: dict[str, str] | None = None  # the notebooks to grade, with LMS names (autograder.run.assignments)
    # a kernel fork server that the caller started (Launcher.serving) and keeps across runs, a test
    # session's (tests/conftest.py); its work root must be work_root. None: the run starts its own
    server: Callable[[], launchers.Launch] | None = None

    @property
    def work_dir(self) -> Path:
        """Where the kernels' working folders go."""
        return self.work_root or self.folder.work_dir

    @functools.cached_property
    def folder(self) -> ResultsFolder:
        """The results folder (its saved states read once for the run)."""
        return ResultsFolder(self.out)


def _jobs(opts: Options, items, course: Course, secret: bytes, states, digest) -> list[Job]:
    from autograder.gradebook import records as gradebook
    from autograder.run.job import Job

    todo = []
    for item in items:
        if isinstance(item, NotebookResult):
            continue
        old = states.get(f"{item.student_id}/{item.notebook}")
        host_failure = Problem.HOST in problems(old.result.errors) if old else False
        kept = old and (old.digest, old.result.content_hash, old.result.seed_id) == (
            digest,
            item.content_hash,
            opts.seed_id,
        )
        if kept and not host_failure:
            continue  # unchanged submission, same sources, engine and inputs: keep its grade (a host failure is retried)
        todo.append(
            Job(
                student_id=item.student_id,
                notebook=item.notebook,
                submitted=dict(item.nb),
                content_hash=item.content_hash,
                source_path=paths.source_notebook(item.notebook),
                release_path=gradebook.release_path(course, item.notebook),
                secret=secret,
                work_root=opts.work_dir,
                limits=opts.limits,
                seed_id=opts.seed_id,
            )
        )
    return todo


def _init_worker(environ: dict[str, str]) -> None:
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


def _run_one(job: Job, slot: int, uid_base: int = sandbox.SANDBOX_UID):
    """Worker entry point (in a child process): never raises."""
    from autograder.run.worker import run_job

    try:
        return run_job(job, uid=runlock.job_uid(uid_base, slot))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - one submission must not stop the batch (SystemExit included)
        where = "".join(traceback.format_exception(exc)[-3:]).strip().replace("\n", " | ")
        return _error_row(job, f"{Problem.GRADER}: {exc!r} at {where}"), None


def _error_row(job: Job, reason: str) -> NotebookResult:
    """A job the grader could not finish: its row, saved with its content hash (re-run when it changes)."""
    return NotebookResult(
        student_id=job.student_id,
        notebook=job.notebook,
        status=Status.ERROR,
        errors=[reason[:1500]],
        content_hash=job.content_hash,
    )


WORKER_DIED = f"{Problem.GRADER}: the grader's worker process for this notebook died (out of memory or killed)"


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
        initializer=_init_worker,
        initargs=(dict(os.environ),),
    ) as pool:
        futures = {pool.submit(_run_one, job, i, uid_base): (i, job) for i, job in jobs}
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except BrokenProcessPool:
                broken.append(futures[future])
                continue
            done(*outcome)
    return broken


def _parallel(opts: Options, todo: list[Job], uid_base: int, done) -> None:
    """Jobs in parallel; those a dying worker took down are re-run one by one, each in its own worker.

    A job whose own worker dies again gets an error row: it alone is lost, never the run.
    """
    broken = _in_pool(min(opts.jobs, len(todo)), list(enumerate(todo)), uid_base, done)
    for slot, job in sorted(broken, key=lambda entry: entry[0]):
        if _in_pool(1, [(slot, job)], uid_base, done):
            done(_error_row(job, WORKER_DIED), None)


class Recorder:
    """The gradebook stage, in the main process only (sqlite wants one writer): one result at a time.

    nbgrader autograde scores the executed notebook, the trusted verdicts are reconciled
    into the gradebook, the feedback is written, and the saved result is marked 'recorded'.
    Run as each job finishes, this overlaps with the jobs still running.
    """

    def __init__(self, folder: ResultsFolder, course: Course) -> None:
        self.folder, self.course = folder, course
        self.session: Session | None = None

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
        gradebook.submit(self.course, result, executed, late.handed_in(self.folder.root, result))
        self.session.autograde(result.notebook, result.student_id)
        handgrades.revisit(self.course, result, before)  # a changed written answer needs a person again
        gradebook.reconcile(self.course, [result])
        shown = self.current(result)
        gradebook.record_late(self.course, [shown], late.due_dates(self.folder.root))  # the page's header shows it
        feedback.generate(self.course, self.session, shown, self.folder.feedback_dir)
        self.folder.save(result, digest, recorded=True)

    def current(self, result: NotebookResult) -> NotebookResult:
        """A copy of a saved result with the scores people gave (written answers, overrides) on it."""
        from autograder.gradebook import records as gradebook

        shown = copy.deepcopy(result)
        gradebook.apply_manual(self.course, [shown])
        overrides.tell(overrides.apply(self.folder.root, self.course, [shown]))
        late.apply(self.folder.root, [shown])
        return shown

    def refresh_feedback(self, result: NotebookResult) -> None:
        """Rewrite one recorded submission's feedback page (a person has graded its written answers)."""
        from autograder.gradebook import records as gradebook

        if self.session is None:
            self.session = gradebook.Session(self.course)
        feedback.generate(self.course, self.session, result, self.folder.feedback_dir)


def _record_or_error(recorder: Recorder, result: NotebookResult, digest: str, executed=None) -> None:
    """Record one result; if nbgrader fails on it, save it as an error (not retried until it changes)."""
    try:
        recorder.record(result, digest, executed)
    except Exception as exc:  # noqa: BLE001 - one submission nbgrader cannot handle must not stop the batch
        if interrupt.REQUESTED.is_set():  # Ctrl-C inside nbgrader: left unrecorded, the next run records it
            raise KeyboardInterrupt from exc
        result.status = Status.ERROR
        result.errors.append(f"{Problem.GRADER} while recording the grade and feedback: {exc!r}"[:500])
        recorder.folder.save(result, digest)


def run_jobs(
    opts: Options,
    ready: Callable[[], launchers.Launch],
    todo: list[Job],
    digest: str,
    recorder: Recorder,
    uid_base: int,
) -> None:
    """Execute jobs (in parallel when jobs > 1); save and record each result as soon as it is done.

    `ready` gives the Launch the jobs carry, once the run's server (if any) is up.
    """
    from tqdm.auto import tqdm

    bar = tqdm(total=len(todo), desc="grading", unit="nb", disable=opts.quiet or not todo, file=sys.stderr)

    def done(result: NotebookResult, executed) -> None:
        opts.folder.save(result, digest, executed)
        _record_or_error(recorder, result, digest, executed)
        bar.update()

    if todo:
        launch = ready()
        for job in todo:
            job.launch = launch
        if opts.in_process:
            for i, job in enumerate(todo):
                done(*_run_one(job, i, uid_base))
        else:  # even one job: the grader's own process never imports torch, and a dying worker is one row
            _parallel(opts, todo, uid_base, done)
    bar.close()


def finish(
    folder: ResultsFolder, recorder: Recorder, touched: frozenset[str] = frozenset(), similarity: bool = False
) -> list[NotebookResult]:
    """Record what an interrupted run left unrecorded, then write all reports.

    A saved result is 'recorded' once nbgrader has scored it and its feedback exists; a
    run killed before that records it here, next time. Each notebook is recorded once.
    The feedback of `touched` results (and of any whose override formgrader changed) is rewritten.
    `similarity`: write the similarity report anew (else the last one's marks are kept).
    """
    grading_view.collect(folder)  # scores typed in an anonymous formgrader, onto the learners' own rows
    for state in list(folder.states().values()):
        if state.result.status == Status.GRADED and not state.recorded:
            _record_or_error(recorder, copy.deepcopy(state.result), state.digest)
    from autograder.gradebook import records as gradebook

    out, results = folder.root, folder.results()
    touched = touched | overrides.adopt(out, recorder.course, results)  # scores entered in formgrader
    gradebook.apply_manual(recorder.course, results)  # written answers: the points a person gave, if any
    overrides.tell(overrides.apply(out, recorder.course, results))  # tests' scores an instructor set
    late.apply(out, results)  # due dates and penalties, last: they apply to the final score
    gradebook.record_late(recorder.course, results, late.due_dates(out))  # nbgrader's export and pages agree
    for result in (r for r in results if r.key in touched and r.status == Status.GRADED):
        recorder.refresh_feedback(result)
    write_reports(out, results)
    _notices(folder, results)
    histogram(results, folder.scores_png)
    _similarity(out, results, similarity)
    return results


def _notices(folder: ResultsFolder, results: list[NotebookResult]) -> None:
    """A feedback page for each submission intake refused (of a learner with a valid id): why, no grade."""
    names = paths.notebook_names()
    for result in results:
        if result.status == Status.REJECTED and ids.valid_id(result.student_id):
            feedback.notice(result, folder.feedback_dir, names)


def _similarity(out: Path, results: list[NotebookResult], anew: bool) -> None:
    """The similarity report (when asked for), or the last one's marks back in the new results.json."""
    from autograder.run import similarity

    try:
        similarity.write(out, results) if anew else similarity.reapply(out)
    except Exception as exc:  # noqa: BLE001 - a report about the grades never takes the grades away
        print(f"WARNING: no similarity report: {exc!r}", file=sys.stderr)


def _course_key(opts: Options) -> bytes:
    """The course's one key (coursekey.locate; made if missing), recorded by fingerprint.

    A sharded run never makes the default one: each machine's checkout would make its own.
    """
    path = coursekey.locate(opts.key_file)
    if opts.shard is not None and not coursekey.named(opts.key_file) and not path.exists():
        raise coursekey.CourseKeyError(
            f"a sharded run needs the course's one key and there is none at {path}: copy the course's key "
            f"there, or give every shard the same --key FILE or {coursekey.KEY_ENV} (made on first use)"
        )
    key = coursekey.load(path)
    coursekey.claim(opts.out, key, path)
    return key


def prepare(folder: ResultsFolder, needed: list[str], cell_seconds: int | None = None) -> tuple[Course, str]:
    """The course folder, set up for the notebooks needed: those graded now and any a killed run left unrecorded.

    The set-up comes from the machine's course cache (autograder.gradebook.coursecache) into RESULTS/.course.
    """
    from autograder.gradebook import records as gradebook

    names = paths.notebook_names()
    digest = f"{sources_digest(names)}-{ENGINE_VERSION}"
    course = Course(folder.course_dir, cell_timeout=cell_seconds or Limits().cell_seconds)
    unrecorded = {
        s.result.notebook for s in folder.states().values() if s.result.status == Status.GRADED and not s.recorded
    }
    gradebook.prepare(course, sorted((set(needed) | unrecorded) & set(names)))
    return course, digest


def grade(opts: Options) -> list[NotebookResult]:
    """Grade every submission; returns all results held in opts.out (one live run per results folder)."""
    how = opts.sandbox or launchers.choose()
    uids = runlock.uid_block() if how.own_uid else nullcontext(sandbox.SANDBOX_UID)  # one uid per job: a block
    with runlock.results_folder(opts.out), uids as uid_base:
        # a held server's work root is its holder's to sweep (its own pid file is there)
        if how.sandboxed and opts.server is None and sandbox.sweep_orphans(opts.work_dir) and not opts.quiet:
            print("killed the kernels a previous, interrupted run left behind", file=sys.stderr)
        # started before the set-up, waited for when the first job starts (nothing waits if none does)
        serving = (
            nullcontext(opts.server) if opts.server else how.serving(opts.work_dir, warmup.run_trains(opts.submissions))
        )
        with serving as ready:
            return _grade(opts, ready, uid_base)


def _ids(items: list) -> set[str]:
    """The learners an intake found (submissions and rejected rows alike)."""
    return {i.student_id for i in items}


def _one_assignment(opts: Options, items: list) -> list:
    """With --assignment: the run's notebooks remembered, and files of any other set aside (told)."""
    if not opts.assignment:
        return items
    assignments.remember(opts.out, opts.assignment)
    items, said = assignments.set_aside(items, opts.assignment, set(opts.folder.states()))
    for line in said[:20]:
        print(f"warning: {printable(line)}", file=sys.stderr)
    if len(said) > 20:
        print(f"warning: {len(said) - 20} more files of other notebooks set aside (grades.csv)", file=sys.stderr)
    return items


def _grade(opts: Options, ready: Callable[[], launchers.Launch], uid_base: int) -> list[NotebookResult]:
    known = {
        n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4)))
        for n in paths.notebook_names()
    }
    sharding.claim(opts.out, opts.shard)
    enrolled = roster.load(opts.roster) if opts.roster else None
    if opts.roster and opts.roster.resolve() != opts.folder.roster.resolve():
        opts.out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(opts.roster, opts.folder.roster)  # export and merge use it too
    if opts.late:
        policy = late.load(opts.late, paths.notebook_names())  # one that cannot be read stops the run here
        opts.out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(opts.late, opts.folder.late_policy)
    items = intake.collect(opts.submissions, known, enrolled)
    if opts.late and (strangers := late.unlisted_learners(policy, enrolled.learners if enrolled else _ids(items))):
        where = "on the roster" if enrolled else "among the submissions"
        print(f"warning: {opts.late}: extensions for learners not {where}: {', '.join(strangers)}", file=sys.stderr)
    items = sharding.select(_one_assignment(opts, items), opts.shard)
    needed = sorted({i.notebook for i in items if not isinstance(i, NotebookResult)})
    course, digest = prepare(opts.folder, needed, opts.limits.cell_seconds)
    if enrolled is not None and course.db_path.exists():
        roster.to_gradebook(enrolled, course.db_path, COURSE_ID)  # formgrader shows the roster's names
    secret = _course_key(opts)  # hidden inputs: drawn from it per learner, notebook and test
    sharding.record(opts.out, opts.shard, digest, coursekey.fingerprint(secret))
    late.record_times(opts.out, opts.submissions, items)
    for item in items:
        if isinstance(item, NotebookResult):
            if item.notebook in known:
                item.max_score = answers.notebook_points(item.notebook)  # as a graded row's
            opts.folder.save(item, digest)
    states = opts.folder.states()
    grading_view.collect(opts.folder)  # before a resubmission is recorded over them
    recorded = [copy.deepcopy(s.result) for s in states.values() if s.recorded]
    touched = frozenset(overrides.adopt(opts.out, course, recorded))  # before a regrade overwrites them
    recorder = Recorder(opts.folder, course)
    run_jobs(opts, ready, _jobs(opts, items, course, secret, states, digest), digest, recorder, uid_base)
    return finish(opts.folder, recorder, touched, opts.similarity)


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
    parser.add_argument("--roster", type=Path, help="class roster CSV: id,name,email,canvas_id,... (README)")
    parser.add_argument("--late", type=Path, help="late-work policy TOML: due dates, extensions, penalty (README)")
    parser.add_argument(
        "--assignment",
        action="append",
        metavar="NOTEBOOK[=LMS NAME]",
        help="grade only this notebook of the download (name or number; repeatable), its LMS column named so",
    )
    parser.add_argument(
        "--shard",
        help="K/N: grade only shard K of N (by a hash of the student id); 'auto': from JOB_COMPLETION_INDEX "
        "(Kubernetes) or SLURM_ARRAY_TASK_ID (Slurm); merge the shards with python -m autograder merge",
    )
    parser.add_argument(
        "--key", type=Path, help=f"the course key file (default ${coursekey.KEY_ENV}, else build/course.key, made once)"
    )
    parser.add_argument(
        "--seed-id",
        default="",
        help="draw every submission's hidden inputs for this learner id, e.g. a Gradescope learner's "
        "gradescope:<user id>, to grade their notebook here as Gradescope did (README)",
    )
    parser.add_argument("--no-similarity", action="store_true", help="skip the similarity report")
    args = parser.parse_args(argv)
    try:
        how = launchers.choose(args.unsafe)
    except launchers.NoSandbox as exc:
        print(
            f"ERROR: no sandbox: {exc}.\nLearner code would run with your rights. Fix that, grade on "
            "Gradescope (python -m autograder gradescope), or pass --unsafe to grade anyway.",
            file=sys.stderr,
        )
        return 2
    if not args.quiet:
        print(f"sandbox: {how.mode}", file=sys.stderr)
    if args.unsafe:
        print("WARNING: --unsafe: learner code runs WITHOUT the sandbox.", file=sys.stderr)
    limits = Limits(cell_seconds=args.cell_timeout)
    if not args.submissions.is_dir():  # before anything is made in RESULTS
        print(f"ERROR: submissions folder {args.submissions} does not exist", file=sys.stderr)
        return 2
    try:
        shard = sharding.parse(args.shard) if args.shard else None
    except sharding.ShardError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    opts = Options(
        submissions=args.submissions.resolve(),
        out=args.out.resolve(),
        jobs=max(1, args.jobs),
        sandbox=how,
        limits=limits,
        quiet=args.quiet,
    )
    opts.shard, opts.key_file, opts.similarity = shard, args.key, not args.no_similarity
    opts.seed_id = args.seed_id
    opts.roster, opts.late = args.roster, args.late
    try:
        opts.assignment = assignments.parse(args.assignment) if args.assignment else None
    except assignments.AssignmentError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    if shard is not None and not args.quiet:
        print(f"shard: {shard}", file=sys.stderr)
    t0 = time.perf_counter()
    interrupt.install()
    try:
        results = grade(opts)
    except KeyboardInterrupt:  # unwound (kernels stopped, lock released): no exit-time joins of a pool or server
        interrupt.exit_now()
    except (
        OSError,
        runlock.RunBusy,
        sharding.ShardError,
        coursekey.CourseKeyError,
        roster.RosterError,
        late.LateError,
        canvas_times.CanvasTimesError,
    ) as exc:  # a missing, unwritable, busy or other shard's folder
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    print(table(results))
    print(f"\n{summary(results)}")
    print(f"\n{len(results)} row(s) in {opts.folder.grades_csv} ({time.perf_counter() - t0:.1f} s)")
    return exit_code(results)


EXIT_HOST = 3  # a row is a host failure: run the same command again (README "Exit codes")
EXIT_AUTHORING = 4  # a source notebook's own checks failed as written: fix it, then grade again


def exit_code(results: list[NotebookResult]) -> int:
    """0 when every submission has a row on its merits; EXIT_HOST when some could not be graded here."""
    if any(Problem.AUTHORING in problems(r.errors) for r in results):
        return EXIT_AUTHORING  # (the summary names the notebook and what failed)
    host = [r for r in results if r.retry_next_run]
    if not host:
        return 0
    print(
        f"ERROR: {len(host)} of {len(results)} notebook(s) could not be graded on this host "
        f"(first: {host[0].student_id}/{host[0].notebook}: {host[0].errors[0][:300]}); "
        "run the same command again to grade them",
        file=sys.stderr,
    )
    return EXIT_HOST
