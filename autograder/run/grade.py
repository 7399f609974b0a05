"""grade: SUBMISSIONS -> RESULTS (grades.csv, results.json, feedback/), resumable and parallel.

Stages, in order: intake (find and validate) -> prepare (course, release) -> run jobs
(rebuild, sandboxed execution in a kernel forked from a preloaded server, then every
test cell run in the worker against that kernel (autograder.checks.harness); in parallel
(autograder.run.pool); each finished job saved at once) -> gradebook
(nbgrader autograde, one writer, reconcile) -> feedback (nbgrader generate_feedback; both
autograder.run.gradebook_stage) -> reports. This module keeps the order and the options.
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
import shutil
import sys
import time
from collections.abc import Callable
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
from autograder.results import NotebookResult, Problem, Status, clip, problems
from autograder.results_folder import ResultsFolder
from autograder.run import assignments, gradebook_stage, interrupt, late, overrides, pool, preflight, runlock, warmup
from autograder.run import shard as sharding
from autograder.run.report import histogram, one_line, printable, similarity_lines, summary, table, write_reports
from autograder.submissions import canvas_times, ids, intake, roster

if TYPE_CHECKING:
    from autograder.run.job import Job

# autograder.run.worker (torch) and autograder.gradebook.records (nbgrader) are imported where used: a run
# starts its fork server first, and the server imports torch while the grader imports these.

ENGINE_VERSION = "3"  # 2: checks run in the grader, against the kernel; 3: inputs from the course key


@dataclass(kw_only=True, frozen=True)
class Options:
    """What a grading run was asked to do: built once (the command line, or a caller), never changed."""

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
    new_key: bool = False  # make the key where it is looked for if there is none (--new-key); else only the default
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
        host_failure = old.result.retry_next_run if old else False  # the host's or the grader's own failure
        kept = old and (old.digest, old.result.content_hash, old.result.seed_id) == (
            digest,
            item.content_hash,
            opts.seed_id,
        )
        if kept and not host_failure:
            continue  # unchanged submission, same sources, engine and inputs: keep its grade (a grader-side failure is retried)
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


def run_jobs(
    opts: Options,
    ready: Callable[[], launchers.Launch],
    todo: list[Job],
    digest: str,
    recorder: gradebook_stage.Recorder,
    uid_base: int,
) -> None:
    """Execute jobs (in parallel when jobs > 1); save and record each result as soon as it is done.

    `ready` gives the Launch the jobs carry, once the run's server (if any) is up.
    """
    from tqdm.auto import tqdm

    bar = tqdm(total=len(todo), desc="grading", unit="nb", disable=opts.quiet or not todo, file=sys.stderr)

    def done(result: NotebookResult, executed) -> None:
        opts.folder.save(result, digest, executed)
        gradebook_stage.record_or_error(recorder, result, digest, executed)
        bar.update()

    if todo:
        launch = ready()
        for job in todo:
            job.launch = launch
        if opts.in_process:
            for i, job in enumerate(todo):
                done(*pool.run_one(job, i, uid_base))
        else:  # even one job: the grader's own process never imports torch, and a dying worker is one row
            pool.parallel(opts.jobs, todo, uid_base, done)
    bar.close()


def finish(
    folder: ResultsFolder,
    recorder: gradebook_stage.Recorder,
    touched: frozenset[str] = frozenset(),
    similarity: bool = False,
) -> list[NotebookResult]:
    """Record what an interrupted run left unrecorded, then write all reports.

    A saved result is 'recorded' once nbgrader has scored it and its feedback exists; a
    run killed before that records it here, next time. Each notebook is recorded once.
    The feedback of `touched` results (and of any whose override formgrader changed) is rewritten, and
    so is every page whose grade differs from the result's now (feedback.stale: a late policy, an extension).
    `similarity`: write the similarity report anew (else the last one's marks are kept).
    """
    grading_view.collect(folder)  # scores typed in an anonymous formgrader, onto the learners' own rows
    gradebook_stage.record_left_over(folder, recorder)
    results = folder.results()
    touched = touched | overrides.adopt(folder, recorder.course, results)  # scores entered in formgrader
    gradebook_stage.apply_decisions(folder, recorder.course, results)  # written answers, overrides, late
    for result in (r for r in results if r.status == Status.GRADED and (r.key in touched or feedback.stale(folder, r))):
        _refresh(recorder, result)  # every page shows the grade every report has (a policy, an extension...)
    write_reports(folder, results)
    tell_unfollowed(recorder)
    _notices(folder, results)
    histogram(results, folder.scores_png)
    _similarity(folder, results, similarity)
    return results


def tell_unfollowed(recorder: gradebook_stage.Recorder) -> None:
    """Say (once) how many rewritten pages an anonymous formgrader view still shows as they were."""
    if recorder.unfollowed:
        print(
            f"note: {recorder.unfollowed} grade(s) changed since the anonymous formgrader view was built: "
            "restart python -m autograder formgrader --anonymous to see them there",
            file=sys.stderr,
        )
        recorder.unfollowed = 0


def _refresh(recorder: gradebook_stage.Recorder, result: NotebookResult) -> None:
    """Rewrite one feedback page; one that cannot be rewritten is said, and release-feedback holds it back."""
    try:
        recorder.refresh_feedback(result)
    except Exception as exc:  # noqa: BLE001 - a page never takes the grades away
        if interrupt.REQUESTED.is_set():
            raise KeyboardInterrupt from exc
        print(
            f"warning: the feedback page of {printable(result.key)} was not rewritten ({type(exc).__name__}: "
            f"{printable(clip(str(exc), 300))}); release-feedback holds it back until export rewrites it",
            file=sys.stderr,
        )


def _notices(folder: ResultsFolder, results: list[NotebookResult]) -> None:
    """A feedback page for each submission intake refused (of a learner with a valid id): why, no grade."""
    names = paths.notebook_names()
    for result in results:
        if result.status == Status.REJECTED and ids.valid_id(result.student_id):
            feedback.notice(result, folder, names)


def _similarity(folder: ResultsFolder, results: list[NotebookResult], anew: bool) -> None:
    """The similarity report (when asked for), or the last one's marks back in the new results.json."""
    from autograder.run import similarity

    try:
        similarity.write(folder, results) if anew else similarity.reapply(folder)
    except Exception as exc:  # noqa: BLE001 - a report about the grades never takes the grades away
        print(f"WARNING: no similarity report: {type(exc).__name__}: {exc}", file=sys.stderr)


def _course_key(opts: Options) -> bytes:
    """The course's one key (coursekey.locate), recorded by fingerprint; made only as _may_make_key says."""
    path = coursekey.locate(opts.key_file)
    if opts.shard is not None and not opts.new_key and not coursekey.named(opts.key_file) and not path.exists():
        raise coursekey.CourseKeyError(
            f"a sharded run needs the course's one key and there is none at {path}: copy the course's key "
            f"there, or give every shard the same --key FILE or {coursekey.KEY_ENV} (with {coursekey.NEW_KEY_FLAG} "
            "to make it on first use)"
        )
    made = not path.exists()
    key = coursekey.load(path, create=may_make_key(opts))
    if made:
        print(f"made a new course key at {path}: keep it, every regrade, replay and shard needs it", file=sys.stderr)
    coursekey.claim(opts.folder, key, path)
    return key


def may_make_key(opts: Options) -> bool:
    """Whether a missing key may be made: told --new-key, or the default place on a folder's first, unsharded run.

    A named place that does not exist is a typo far more often than a new course: it is refused.
    """
    if opts.new_key:
        return True
    return not coursekey.named(opts.key_file) and opts.shard is None and not opts.folder.key_record.exists()


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
    with runlock.results_folder(opts.folder), uids as uid_base:
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
    assignments.remember(opts.folder, opts.assignment)
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
    sharding.claim(opts.folder, opts.shard)
    enrolled = roster.load(opts.roster) if opts.roster else None
    if opts.roster and opts.roster.resolve() != opts.folder.roster.resolve():
        opts.folder.root.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(opts.roster, opts.folder.roster)  # export and merge use it too
    if opts.late:
        policy = late.load(opts.late, paths.notebook_names())  # one that cannot be read stops the run here
        opts.folder.root.mkdir(parents=True, exist_ok=True)
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
    sharding.record(opts.folder, opts.shard, digest, coursekey.fingerprint(secret))
    untimed = late.record_times(opts.folder, opts.submissions, items)
    if untimed and opts.late:  # the policy cannot reach them: said once per run, with how to get the times
        print(late.untimed_warning(untimed, opts.submissions), file=sys.stderr)
    for item in items:
        if isinstance(item, NotebookResult):
            if item.notebook in known:
                item.max_score = answers.notebook_points(item.notebook)  # as a graded row's
            opts.folder.save(item, digest)
    states = opts.folder.states()
    grading_view.collect(opts.folder)  # before a resubmission is recorded over them
    recorded = [copy.deepcopy(s.result) for s in states.values() if s.recorded]
    touched = frozenset(overrides.adopt(opts.folder, course, recorded))  # before a regrade overwrites them
    recorder = gradebook_stage.Recorder(opts.folder, course)
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
        "--key",
        type=Path,
        help=f"the course key file (default ${coursekey.KEY_ENV}, else build/course.key, made on a course's first run)",
    )
    parser.add_argument(
        coursekey.NEW_KEY_FLAG,
        action="store_true",
        help="make the course key at --key FILE (or $AUTOGRADER_KEY_FILE) if there is none: only for a new course",
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
    if said := preflight.refusal(args.submissions, args.out, set(paths.notebook_names())):
        print(f"ERROR: {said}", file=sys.stderr)  # before anything is made in RESULTS
        return 2
    try:
        shard = sharding.parse(args.shard) if args.shard else None
        assignment = assignments.parse(args.assignment) if args.assignment else None
    except (sharding.ShardError, assignments.AssignmentError) as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    opts = Options(
        submissions=args.submissions.resolve(),
        out=args.out.resolve(),
        jobs=max(1, args.jobs),
        sandbox=how,
        limits=limits,
        quiet=args.quiet,
        shard=shard,
        key_file=args.key,
        new_key=args.new_key,
        seed_id=args.seed_id,
        similarity=not args.no_similarity,
        roster=args.roster,
        late=args.late,
        assignment=assignment,
    )
    try:  # a mistyped, folder or unreadable key: refused before anything is written
        coursekey.check(coursekey.locate(opts.key_file), may_make_key(opts))
    except coursekey.CourseKeyError as exc:
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
    if opts.similarity:  # this run's report (with --no-similarity the last one is stale: not counted here)
        print("\n".join(["", *similarity_lines(opts.folder)]))
    print(f"\n{len(results)} row(s) in {opts.folder.grades_csv} ({time.perf_counter() - t0:.1f} s)")
    return exit_code(results)


EXIT_HOST = 3  # a row is a host's or the grader's own failure: fix what it names, run the same command again
EXIT_AUTHORING = 4  # a source notebook's own checks failed as written: fix it, then grade again


def exit_code(results: list[NotebookResult]) -> int:
    """0 when every submission has a row on its merits; EXIT_HOST when some failed on the grader's side."""
    if any(Problem.AUTHORING in problems(r.errors) for r in results):
        return EXIT_AUTHORING  # (the summary names the notebook and what failed)
    failed = [r for r in results if r.retry_next_run]
    if not failed:
        return 0
    first = failed[0]
    print(
        f"ERROR: {len(failed)} of {len(results)} notebook(s) were not graded because the grader or this host "
        f"failed, not the learners' work (first: {first.student_id}/{first.notebook}: {one_line(clip(first.errors[0], 600))}); "
        "fix what it names, then run the same command again: those notebooks are graded again",
        file=sys.stderr,
    )
    return EXIT_HOST
