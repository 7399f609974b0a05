"""replay: re-run one test of one learner's graded notebook and show what it compared (instructor only).

    python -m autograder replay RESULTS STUDENT NOTEBOOK TEST [--key FILE] [--save FILE.npz]

For a regrade request. The learner's saved submission (RESULTS/.state) is graded again,
exactly as `grade` does (rebuilt, sandboxed kernel, the checks in this process), with the
course's one key (found as `grade` finds it; a folder graded with another is refused, naming
both) and for the learner id the run recorded (a Gradescope run's), so the hidden inputs are
the very ones of the graded run. While TEST runs, every call of the learner's code (its inputs and outputs)
and every check (the learner's value, the expected one, the tolerance) is recorded and
printed (--full: large arrays unabridged); --save writes every array of it to an .npz file. The output holds hidden inputs
and expected values: it is for the instructor, never for the learner.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import numpy as np

from autograder import paths
from autograder.checks import coursekey
from autograder.kernel import launchers, sandbox
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results_folder import ResultsFolder
from autograder.run import grade, overrides, runlock


def override_line(folder: ResultsFolder, student: str, notebook: str, test: str) -> str | None:
    """The override in force on this test (its grade is the instructor's, not the checks'), in one line, or None."""
    held = overrides.Store(folder).current.get(f"{student}/{notebook}/{test}")
    if held is None:
        return None
    out_of = f"/{held.out_of:g}" if held.out_of else ""
    comment = f": {held.comment}" if held.comment else ""
    return (
        f"== OVERRIDDEN: the grade uses {held.points:g}{out_of}, set by {held.source} on {held.at or '?'} "
        f"(the checks gave {held.auto_score:g}){comment}; the score above is the checks' alone"
    )


class ReplayError(ValueError):
    """What replay cannot do, and why."""


@dataclass
class Record:
    """What one test did: its events in order (calls of the learner's code, checks) and its verdict."""

    test: str
    active: bool = False
    events: list[dict] = field(default_factory=list)
    verdict: Any = None


@contextlib.contextmanager
def recording(test: str) -> Iterator[Record]:
    """Record, while `test` runs in this process, each call of the learner's code and each check."""
    from autograder import workbook as trusted
    from autograder.checks import harness, proxy

    rec = Record(test)
    saved: dict[tuple[type, str], Any] = {
        (harness.Harness, "run_test"): harness.Harness.run_test,
        (proxy.RemoteObject, "__call__"): proxy.RemoteObject.__call__,
        **{(trusted.Check, name): getattr(trusted.Check, name) for name in ("close", "equal", "true")},
    }

    def run_test(self, cell):
        rec.active = answers.grade_id(cell) == test
        try:
            verdict = saved[(harness.Harness, "run_test")](self, cell)
            if rec.active:
                rec.verdict = verdict
            return verdict
        finally:
            rec.active = False

    def call(self, *args, **kwargs):
        event = {"kind": "call", "target": self._r_type, "args": args, "kwargs": kwargs}
        if rec.active:
            rec.events.append(event)
        try:
            event["output"] = saved[(proxy.RemoteObject, "__call__")](self, *args, **kwargs)
        except BaseException as exc:
            event["raised"] = f"{type(exc).__name__}: {exc}"
            raise
        return event["output"]

    def checker(name):
        def check(self, key, *values, **options):
            if rec.active:
                rec.events.append({"kind": name, "check": f"{self.name}/{key}", "values": values, "options": options})
            return saved[(trusted.Check, name)](self, key, *values, **options)

        return check

    # patched for this one replay, restored below
    harness.Harness.run_test = run_test  # type: ignore[method-assign]
    proxy.RemoteObject.__call__ = call  # type: ignore[method-assign]
    for name in ("close", "equal", "true"):
        setattr(trusted.Check, name, checker(name))
    try:
        yield rec
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)


def show(value: Any, arrays: dict[str, np.ndarray], label: str, depth: int = 0) -> str:
    """A value as text (tensors in full up to numpy's print threshold); every array also kept in `arrays`."""
    import torch

    if depth > 6:
        return "..."
    if isinstance(value, torch.Tensor):
        cpu = value.detach().cpu()
        array = (cpu.float() if cpu.dtype == torch.bfloat16 else cpu).numpy()
        arrays[label] = array
        return f"tensor {tuple(value.shape)} {value.dtype} [{label}]\n{np.array2string(array, precision=6)}"
    if isinstance(value, np.ndarray):
        arrays[label] = value
        return f"array {value.shape} {value.dtype} [{label}]\n{np.array2string(value, precision=6)}"
    if isinstance(value, torch.nn.Module):
        state = {k: show(v, arrays, f"{label}.{k}", depth + 1) for k, v in value.state_dict().items()}
        return f"{type(value).__name__} module:\n" + "\n".join(f"  {k}: {v}" for k, v in state.items())
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(show(v, arrays, f"{label}.{i}", depth + 1) for i, v in enumerate(value)) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v, arrays, f'{label}.{k}', depth + 1)}" for k, v in value.items()) + "}"
    return repr(value)[:2000]


def describe(rec: Record) -> tuple[str, dict[str, np.ndarray]]:
    """The record as text, and the arrays it shows by label."""
    arrays: dict[str, np.ndarray] = {}
    lines = [f"== test {rec.test}: {len(rec.events)} event(s)"]
    for i, event in enumerate(rec.events, 1):
        if event["kind"] == "call":
            lines.append(f"-- [{i}] call of the learner's {event['target']}")
            lines.append("   inputs: " + show((event["args"], event["kwargs"]), arrays, f"e{i}.in"))
            if "raised" in event:
                lines.append(f"   raised: {event['raised']}")
            elif "output" in event:
                lines.append("   learner's output: " + show(event["output"], arrays, f"e{i}.out"))
        else:
            values, options = event["values"], event["options"]
            lines.append(f"-- [{i}] check.{event['kind']} {event['check']} {options or ''}")
            lines.append("   learner's value: " + show(values[0] if values else None, arrays, f"e{i}.actual"))
            if event["kind"] in ("close", "equal") and len(values) > 1:
                lines.append("   expected: " + show(values[1], arrays, f"e{i}.expected"))
    verdict = rec.verdict
    if verdict is not None:
        lines.append(f"== verdict: {'passed' if verdict.passed else 'failed'} {verdict.message}")
    return "\n".join(lines), arrays


def saved_submission(folder: ResultsFolder, student: str, notebook: str) -> tuple[dict, dict]:
    """The learner's graded notebook and its saved result, from RESULTS/.state."""
    saved, executed = folder.state(student, notebook), folder.executed_path(student, notebook)
    if saved is None or not executed.exists():
        raise ReplayError(f"{folder} holds no graded {notebook} of {student!r}")
    return nbformat.read(executed, as_version=4), saved.result.to_dict()


def replay(
    results: ResultsFolder, student: str, notebook: str, test: str, key_file: Path | None, unsafe: bool, seed_id=""
):
    """Grade the submission again with the folder's key, recording TEST; returns (record, new result, old result)."""
    from autograder.gradebook import records as gradebook
    from autograder.run.worker import Job, run_job

    if notebook not in paths.notebook_names():
        raise ReplayError(f"no notebook {notebook!r} in this course")
    tests = [
        answers.nbgrader_id(c) for c in nbformat.read(paths.source_notebook(notebook), 4).cells if answers.is_test(c)
    ]
    if test not in tests:
        raise ReplayError(f"{notebook} has no test {test!r} (its tests: {', '.join(tests)})")
    key_path = coursekey.locate(key_file)
    key = coursekey.load(key_path, create=False)
    held = coursekey.held_by(results)
    if held is not None and held != coursekey.fingerprint(key):
        raise ReplayError(coursekey.refusal(results, held, coursekey.fingerprint(key), key_path))
    submitted, old = saved_submission(results, student, notebook)
    seed_id = seed_id or old.get("seed_id", "")  # the id the graded run drew for (a Gradescope run's)
    course, _ = grade.prepare(results, [notebook])
    how = launchers.choose(unsafe)
    with tempfile.TemporaryDirectory(prefix="replay-") as work:
        job = Job(
            student_id=student,
            notebook=notebook,
            submitted=dict(submitted),
            content_hash=old.get("content_hash", ""),
            source_path=paths.source_notebook(notebook),
            release_path=gradebook.release_path(course, notebook),
            secret=key,
            work_root=Path(work),
            limits=Limits(),
            seed_id=seed_id,
        )
        uids = runlock.uid_block() if how.own_uid else nullcontext(sandbox.SANDBOX_UID)
        with uids as uid_base, how.serving(Path(work)) as ready, recording(test) as rec:
            job.launch = ready()
            result, _ = run_job(job, uid=runlock.job_uid(uid_base, 0))
    return rec, result, old


def main(argv: list[str] | None = None) -> int:
    """Re-run one test of one learner's notebook; print its inputs, the learner's outputs and the expected values."""
    parser = argparse.ArgumentParser(prog="python -m autograder replay", description=main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("student")
    parser.add_argument("notebook")
    parser.add_argument("test", help="the test's grade_id (as in results.json)")
    parser.add_argument(
        "--key", type=Path, help=f"the course key file (default ${coursekey.KEY_ENV}, else build/course.key)"
    )
    parser.add_argument(
        "--seed-id",
        default="",
        help="draw the inputs for this learner id (default: the one the graded run recorded, else STUDENT)",
    )
    parser.add_argument("--save", type=Path, help="write every array shown to this .npz file")
    parser.add_argument("--full", action="store_true", help="print every value of large arrays (default: summarised)")
    parser.add_argument("--unsafe", action="store_true", help="run the learner's code without the sandbox")
    args = parser.parse_args(argv)
    try:
        rec, result, old = replay(
            ResultsFolder(args.results.resolve()),
            args.student,
            args.notebook,
            args.test,
            args.key,
            args.unsafe,
            args.seed_id,
        )
    except (ReplayError, coursekey.CourseKeyError, launchers.NoSandbox, OSError) as exc:
        print(f"ERROR: cannot replay: {exc}", file=sys.stderr)
        return 2
    with np.printoptions(threshold=sys.maxsize if args.full else 1000):
        text, arrays = describe(rec)
    print("INSTRUCTOR ONLY: hidden inputs and expected values follow; never share this output with a learner.")
    print(text)
    new = next((t for t in result.tests if t.name == args.test), None)
    before = next((t for t in old.get("tests", []) if t.get("name") == args.test), None)
    if new is not None:
        graded = f"{before['score']:g}/{before['max_score']:g}" if before else "not graded before"
        print(f"== score now {new.score:g}/{new.max_score:g} ({new.status}); graded run: {graded}")
    if said := override_line(ResultsFolder(args.results.resolve()), args.student, args.notebook, args.test):
        print(said)
    if args.save:
        save: Any = np.savez  # (numpy's stubs differ across versions on **arrays beside allow_pickle)
        save(args.save, **arrays)
        print(f"== {len(arrays)} array(s) in {args.save}")
    return 0
