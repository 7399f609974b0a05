"""merge: the results folders of `grade --shard K/N` (K = 1..N) -> one results folder, as one run gives.

    python -m autograder merge SHARD_RESULTS... --out RESULTS

RESULTS gets what a single `grade` over all submissions writes: grades.csv, results.json,
lms.csv, feedback/, scores.png, the similarity report (every learner of every shard compared;
--no-similarity leaves it to a step of its own, `python -m autograder similarity RESULTS`, as
deploy/slurm and deploy/kubernetes run it), the summary (printed), and one nbgrader gradebook
(RESULTS/.course/gradebook.db) holding every learner's submissions, grades and comments,
manual scores included. Nothing is graded again: each shard's saved results and executed
notebooks are copied (RESULTS/.state, so a later `grade` run on RESULTS resumes from
them), and each submission's gradebook rows are copied, field by field, through
nbgrader's own API into a gradebook set up from the same sources.

It refuses, before writing anything: a folder that is not a finished shard, shards
graded from different sources or engine versions (or from other sources than this
checkout's), shards graded with different course keys (their fingerprints differ) or with
another key than the course's one (found as `grade` finds it: --key FILE, $AUTOGRADER_KEY_FILE,
build/course.key; the shards' fingerprint must be its), shards of
different counts, the same shard twice, a missing shard, a learner found in two shards or in a
shard their id does not hash to, and a notebook its shard's host could not grade (grade exited
3: run that shard again).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from autograder.checks import coursekey
from autograder.gradebook.course import Course
from autograder.gradebook.course_folder import COURSE_ID, HANDED_IN, CourseFolder
from autograder.results import NotebookResult, Problem, Status, write_json_atomic
from autograder.results import problems as problem_kinds
from autograder.results_folder import HandedIn, RecordError, ResultsFolder, SavedState, ShardRecord
from autograder.run import grade, gradebook_stage, overrides, runlock
from autograder.run import shard as sharding
from autograder.run.report import summary, table
from autograder.submissions import roster as rosters

# What an instructor decided in the shards' folders, carried into the merged one: the late
# policy and the roster (the same in every shard), and each shard's overrides, set-aside
# hand scores and submission times (each shard's learners are its own).


class MergeError(ValueError):
    """Shards that cannot be merged, and why."""


def check(folders: list[ResultsFolder]) -> tuple[str | None, dict[ResultsFolder, dict[str, SavedState]]]:
    """Validate the shards; returns their common digest and each folder's saved states.

    Raises MergeError naming every problem found.
    """
    if not folders:
        raise MergeError("no shard results folders given")
    records: dict[ResultsFolder, ShardRecord] = {}
    problems = [f"{f}: given twice" for i, f in enumerate(folders) if f in folders[:i]]
    for folder in dict.fromkeys(folders):
        if not folder.root.is_dir():
            problems.append(f"{folder}: no such folder")
            continue
        try:
            record = sharding.read(folder)
        except sharding.ShardError as exc:
            problems.append(str(exc))
            continue
        if record is None:
            record_name = folder.shard_record.name
            problems.append(f"{folder}: not a shard's results (no {record_name}; grade it with --shard K/N)")
            continue
        records[folder] = record
    if problems:
        raise MergeError("\n".join(problems))
    counts = {r.count for r in records.values()}
    if len(counts) > 1:
        raise MergeError(
            "shards of different counts: "
            + ", ".join(f"{f} is {r.index}/{r.count}" for f, r in records.items())
            + " (every shard of a run must be K/N with the same N)"
        )
    (count,) = counts
    digests = {r.digest for r in records.values()}
    if len(digests) > 1:
        raise MergeError(
            "shards graded from different sources or engine versions: "
            + "; ".join(f"{f} ({r.index}/{count}): {r.digest}" for f, r in records.items())
            + " (re-grade the odd ones from the same checkout)"
        )
    (digest,) = digests
    keys = {r.key for r in records.values()}
    if len(keys) > 1:
        raise MergeError(
            "shards graded with different course keys: "
            + "; ".join(f"{f} ({r.index}/{count}): key {r.key or '(none recorded)'}" for f, r in records.items())
            + " (their hidden inputs differ: re-grade the odd ones with the same --key FILE)"
        )
    problems += _decisions_differ(list(records))
    by_index: dict[int, list[ResultsFolder]] = {}
    for folder, record in records.items():
        by_index.setdefault(record.index, []).append(folder)
    twice = [
        f"shard {k}/{count} given {len(fs)} times: {', '.join(map(str, fs))}"
        for k, fs in by_index.items()
        if len(fs) > 1
    ]
    missing = sorted(set(range(1, count + 1)) - set(by_index))
    if twice or missing:
        lines = twice + ([f"missing shard(s): {', '.join(f'{k}/{count}' for k in missing)}"] if missing else [])
        raise MergeError("\n".join(lines) + " (merge needs each of shards 1..N exactly once)")
    states: dict[ResultsFolder, dict[str, SavedState]] = {}
    seen: dict[str, ResultsFolder] = {}
    for folder, record in sorted(records.items(), key=lambda fr: fr[1].index):
        shard = sharding.Shard(record.index, count)
        held = folder.states()
        for key, state in held.items():
            student = state.result.student_id
            if key in seen:
                problems.append(f"overlapping shards: {key} is in {seen[key]} and in {folder}")
            seen[key] = folder
            if not shard.holds(student):
                problems.append(
                    f"{folder} (shard {shard}) holds {student!r}, whose id belongs to shard "
                    f"{sharding.shard_of(student, count)}/{count}: overlapping shards"
                )
            if state.digest != digest:
                problems.append(f"{folder}: {key} was graded from other sources or engine ({state.digest}); re-run it")
            elif state.result.status == Status.GRADED and not state.recorded:
                problems.append(f"{folder}: {key} is not recorded yet: that shard's run did not finish; run it again")
            host = [e for e in state.result.errors if problem_kinds([e]) & {Problem.HOST, Problem.GRADER}]
            if host:  # grade exited 3 there: the next run of that shard grades it
                problems.append(
                    f"{folder}: {key} could not be graded on its host ({host[0][:200]}); run shard {shard} again"
                )
        states[folder] = held
    if problems:
        raise MergeError(
            "\n".join(problems[:50]) + (f"\n... and {len(problems) - 50} more" if len(problems) > 50 else "")
        )
    return digest, states


def _decisions_differ(folders: list[ResultsFolder]) -> list[str]:
    """A late policy or roster that is not the same file in every shard (or in none)."""
    problems, shards = [], {f: f.same_in_every_shard() for f in folders}
    for i, name in enumerate(p.name for p in next(iter(shards.values()), ())):
        held = {f: kept[i].read_bytes() if kept[i].is_file() else None for f, kept in shards.items()}
        if len(set(held.values())) > 1:
            which = ", ".join(f"{f} {'has one' if b is not None else 'has none'}" for f, b in held.items())
            problems.append(f"the shards hold different {name} files ({which}): grade every shard with the same one")
    return problems


def _json(path: Path, default):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except ValueError as exc:
        raise MergeError(f"{path} cannot be read ({exc}): mend or remove it, then merge again") from exc


def carry_decisions(shards: list[ResultsFolder], merged: ResultsFolder) -> None:
    """Put the shards' late policy, roster, overrides, set-aside hand scores and times in `merged`."""
    for i, dest in enumerate(merged.same_in_every_shard()):
        first = next((p for s in shards if (p := s.same_in_every_shard()[i]).is_file()), None)
        if first is not None:
            shutil.copyfile(first, dest)
    given = overrides.Store(merged)  # the overrides file's own reader and writer
    aside: list = []
    times: dict[str, HandedIn] = {}
    for shard in shards:
        try:
            held = overrides.Store(shard)
        except (ValueError, TypeError, AttributeError) as exc:
            raise MergeError(f"{shard.overrides} cannot be read ({exc}): mend or remove it") from exc
        given.current.update(held.current)
        given.history += held.history
        given.changed |= bool(held.current or held.history)
        aside += _json(shard.hand_history, {}).get("set_aside", [])
        try:
            times.update(shard.read_times())
        except RecordError as exc:
            raise MergeError(f"{exc}: mend or remove it, then merge again") from exc
    given.save()
    if aside:
        write_json_atomic(merged.hand_history, {"set_aside": aside})
    if times:
        merged.write_times(times)


def _copy_tree(src: Path, dest: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)


def copy_gradebook(source: CourseFolder, into: CourseFolder) -> int:
    """Copy every submission (student, submitted notebooks, grades, comments) from one gradebook to another.

    The destination has the same assignments, notebooks and cells (set up from the same
    sources); rows are matched by name, and every stored value (auto and manual scores,
    extra credit, comments, flags, timestamps) is copied. Returns how many submissions.
    """
    from nbgrader.api import Comment, Grade, Student, SubmittedAssignment, SubmittedNotebook

    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's own SQLAlchemy use

    def values(row, table) -> dict:
        """A row's own stored values: every column but its id and the keys that tie it to other rows."""
        return {
            c.name: getattr(row, c.name) for c in table.__table__.columns if not c.primary_key and not c.foreign_keys
        }

    copied = 0
    with source.gradebook() as src, into.gradebook() as dest:
        for student in src.students:
            dest.update_or_create_student(student.id, **values(student, Student))
        for sub in src.db.query(SubmittedAssignment).all():
            target = dest.add_submission(sub.name, sub.student_id)
            for column, value in values(sub, SubmittedAssignment).items():
                setattr(target, column, value)
            notebooks = {nb.name: nb for nb in target.notebooks}
            for nb in sub.notebooks:
                tnb = notebooks[nb.name]
                for column, value in values(nb, SubmittedNotebook).items():
                    setattr(tnb, column, value)
                grades = {g.name: g for g in tnb.grades}
                for g in nb.grades:
                    for column, value in values(g, Grade).items():
                        setattr(grades[g.name], column, value)
                comments = {c.name: c for c in tnb.comments}
                for c in nb.comments:
                    for column, value in values(c, Comment).items():
                        setattr(comments[c.name], column, value)
            copied += 1
        dest.db.commit()
    return copied


@contextlib.contextmanager
def building(merged: ResultsFolder) -> Iterator[ResultsFolder]:
    """A new folder next to `merged` to build the merge in (one merge at a time; a killed merge's leftovers go)."""
    out = merged.root
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = runlock.try_lock(out.parent / f".{out.name}.merge-lock")
    if lock is None:
        raise runlock.RunBusy(f"another merge into {out} is running")
    tmp = out.parent / f".{out.name}.merging"
    try:
        if tmp.exists():
            shutil.rmtree(tmp)  # what a killed merge left: nothing in it is kept
        tmp.mkdir()
        yield ResultsFolder(tmp)  # a folder of its own until it takes the merged one's place
    finally:
        lock.close()


def _build(
    states: dict[ResultsFolder, dict[str, SavedState]], merged: ResultsFolder, names: list[str], similarity: bool = True
):
    """Write the merged results folder's contents into `merged`; returns every result."""
    # the notebooks a single run would set up: every one that reached grading (not rejected at intake)
    needed = {
        s.result.notebook for held in states.values() for s in held.values() if s.result.status != Status.REJECTED
    }
    course, _ = grade.prepare(merged, sorted(needed & set(names)))
    for shard in sorted(states, key=str):
        _copy_tree(shard.state_dir, merged.state_dir)
        _copy_tree(shard.shapes_dir, merged.shapes_dir)  # the shard's prints: its learners are not shaped again
        _copy_tree(shard.feedback_dir, merged.feedback_dir)
        held = CourseFolder.of(shard)
        for part in HANDED_IN:
            _copy_tree(held.folder(part), course.folder(part))
        if held.db_path.exists() and course.db_path.exists():
            copy_gradebook(held, course)
    (key,) = {_key(f) for f in states}
    if key:
        merged.write_key(key)  # by name only
    carry_decisions(list(states), merged)
    if merged.roster.is_file() and course.db_path.exists():
        rosters.to_gradebook(rosters.load(merged.roster), course.db_path, COURSE_ID)  # formgrader's names
    # grade's own conclusion: written scores, overrides, late penalties, reports, and a
    # similarity report over everyone (a shard compared its own learners only)
    merged.reload()  # the shards' states, copied in since prepare read the (empty) folder
    return grade.finish(merged, gradebook_stage.Recorder(merged, course), similarity=similarity)


def _key(shard: ResultsFolder) -> str:
    """The course key's fingerprint a shard recorded ("" for none)."""
    record = sharding.read(shard)
    return record.key if record is not None else ""


def check_key(folders: list[ResultsFolder], key_file: Path | None = None) -> None:
    """Refuse shards graded with another key than the course's one (coursekey.locate), naming its file."""
    held = next((_key(f) for f in folders), "")  # one: check() saw to it
    if not held:
        return  # shards that recorded no key (before fingerprints): nothing to compare
    path = coursekey.locate(key_file)
    try:
        mine = coursekey.fingerprint(coursekey.load(path, create=False))
    except coursekey.CourseKeyError as exc:
        raise MergeError(f"the shards were graded with course key {held}, and {exc}") from None
    if mine != held:
        raise MergeError(
            f"the shards were graded with course key {held}, the course key in {path} is {mine}: "
            "give --key FILE, the file the shards were given"
        )


def merge(
    folders: list[ResultsFolder],
    merged: ResultsFolder,
    quiet: bool = False,
    key_file: Path | None = None,
    similarity: bool = True,
) -> list[NotebookResult]:
    """Merge the shards' results folders (absolute paths, as main resolves them) into `merged` (new or empty).

    Returns every result. `similarity`: False leaves the report to a step of its own (`similarity OUT`).
    """
    out = merged.root
    if any(out.is_relative_to(f.root) or f.root.is_relative_to(out) for f in folders):
        raise MergeError(f"--out {out} must be a folder of its own, apart from the shards")
    if out.exists() and any(out.iterdir()):
        raise MergeError(f"--out {out} is not empty: merge writes a new results folder")
    digest, states = check(folders)
    check_key(list(states), key_file)  # the merged folder is then graded and replayed with the course's key
    names = grade.paths.notebook_names()
    here = f"{grade.sources_digest(names)}-{grade.ENGINE_VERSION}"
    if here != digest:
        raise MergeError(
            f"the shards were graded from sources/engine {digest}, this checkout has {here}: "
            "merge from the checkout (and version of the grader) that graded them"
        )
    with building(merged) as tmp, runlock.results_folder(tmp):
        results = _build(states, tmp, names, similarity)
        write_json_atomic(
            tmp.merge_record,
            {"digest": digest, "count": len(folders), "shards": [str(f) for f in sorted(states, key=str)]},
        )
        if out.exists():
            out.rmdir()  # empty (checked above): the finished folder takes its place
        os.replace(tmp.root, out)
    Course.of(merged).write_config()  # the course folder's config names where it now is
    return results


def main(argv: list[str] | None = None) -> int:
    """Merge the results folders of `grade --shard K/N` (every K from 1 to N) into one results folder."""
    parser = argparse.ArgumentParser(prog="python -m autograder merge", description=main.__doc__)
    parser.add_argument("shards", type=Path, nargs="+", help="the shards' results folders (K = 1..N, each once)")
    parser.add_argument("--out", type=Path, required=True, help="the merged results folder (new or empty)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--key",
        type=Path,
        help=f"the course key file the shards were given (default ${coursekey.KEY_ENV}, else build/course.key)",
    )
    parser.add_argument(
        "--no-similarity",
        action="store_true",
        help="leave the similarity report (every learner of every shard compared) to a step of its own: "
        "python -m autograder similarity OUT",
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    try:
        shards, merged = [ResultsFolder(f.resolve()) for f in args.shards], ResultsFolder(args.out.resolve())
        results = merge(shards, merged, args.quiet, args.key, not args.no_similarity)
    except (MergeError, OSError, runlock.RunBusy) as exc:
        print(f"ERROR: cannot merge: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(table(results))
    print(f"\n{summary(results)}")
    print(
        f"\n{len(results)} row(s) from {len(args.shards)} shard(s) in {merged.grades_csv} "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
