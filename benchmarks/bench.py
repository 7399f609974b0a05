"""Grading throughput at course scale: this grader at 1 and N jobs vs plain nbgrader, and the floor.

    python benchmarks/bench.py [--learners 40] [--jobs N] [--skip-plain]

Builds a synthetic class (correct, partial, buggy, attacking and broken submissions;
each learner submits notebook 01 and one other notebook), then prints:
notebooks graded per minute with `grade` at 1 and N jobs (fresh results folders, the
course built beforehand), the same class through plain `nbgrader autograde`
serially, the per-notebook time split, and the ratio to the floor (a fresh Python
process that imports torch and runs the notebook's own code).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import plain_nbgrader  # noqa: E402
from attack_support import ZERO_ANSWERS, attack_files  # noqa: E402
from support import catalogue_entries, make_submission  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.kernel import launchers, preload, sandbox  # noqa: E402
from autograder.kernel.limits import Limits  # noqa: E402
from autograder.kernel.reference import kernel_env  # noqa: E402
from autograder.material import answers  # noqa: E402
from autograder.results_folder import ResultsFolder  # noqa: E402
from autograder.run import grade  # noqa: E402

NB01 = "01_scaled_dot_product_attention"
KINDS = ["correct", "partial", "buggy", "attacking", "broken"]
# Attacks that only cheat inside the kernel: plain nbgrader runs learner code unsandboxed as
# this user, so the class leaves out the ones that harm the host (kill, fork, flood, hang).
CHEATS = [
    "ast_transformer", "custom_exception_handler", "equal_to_anything", "fake_check_class",
    "forge_records_zeros", "input_transformer", "patch_check_methods", "patch_numpy",
    "patch_torch_allclose", "post_run_clear_output", "settrace", "tensor_subclass",
]  # fmt: skip


def _submission(name: str, kind: str, i: int):
    """A notebook of the given kind, or bytes for a broken one."""
    entries = catalogue_entries(name)
    wrong = [p for p in entries if p.name.startswith("wrong_")] or [None]
    if kind == "correct":
        return make_submission(name, None)
    if kind == "partial":
        source = nbformat.read(paths.source_notebook(name), as_version=4)
        ids = answers.answer_ids(source)
        keep = {g: s for g, s in answers.reference_answers(source).items() if g != ids[-1]} if len(ids) > 1 else {}
        return make_submission(name, None, defaults=keep)
    if kind == "buggy":
        return make_submission(name, wrong[i % len(wrong)])
    if kind == "attacking" and name == NB01:
        cheats = [p for p in attack_files() if p.stem in CHEATS]
        return make_submission(name, cheats[i % len(cheats)], defaults=ZERO_ANSWERS)
    if kind == "attacking":
        return make_submission(name, wrong[-1])
    return b'{"cells": [ broken'


def build_class(folder: Path, learners: int, names: list[str]) -> int:
    """Write the class; returns the number of notebooks."""
    others = [n for n in names if n != NB01] or [NB01]
    count = 0
    for i in range(learners):
        kind = KINDS[i % len(KINDS)]
        student = folder / f"learner{i:03d}"
        student.mkdir(parents=True)
        for name in dict.fromkeys([NB01, others[i % len(others)]]):
            sub = _submission(name, kind, i)
            path = student / f"{name}.ipynb"
            path.write_bytes(sub) if isinstance(sub, bytes) else nbformat.write(sub, path)
            count += 1
    return count


def run_grade(subs: Path, out: Path, jobs: int, reference_cache: Path) -> tuple[float, list]:
    """Time one grading run into a fresh results folder (the per-course set-up copied in)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.copytree(reference_cache, out, dirs_exist_ok=True)  # per-course set-up, as on a re-run
    opts = grade.Options(
        submissions=subs, out=out, jobs=jobs, sandbox=launchers.choose(trusted=True), limits=Limits(), quiet=True
    )
    t0 = time.perf_counter()
    results = grade.grade(opts)
    return time.perf_counter() - t0, results


def floor_seconds(name: str) -> float:
    """A fresh Python process importing torch and running the notebook's code (reference answers)."""
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    code = "\n\n".join(c.source for c in nb.cells if c.cell_type == "code")
    lines = [ln for ln in code.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copyfile(paths.WORKBOOK, Path(tmp) / "workbook.py")
        (Path(tmp) / "nb.py").write_text("\n".join(lines))
        env = {**os.environ, "WORKBOOK_GRADING": "1", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "nb.py"], cwd=tmp, env=env, check=True, capture_output=True)
        return time.perf_counter() - t0


def plain_serial(subs: Path, names: list[str], work: Path) -> float:
    """The class through stock `nbgrader autograde`, one assignment at a time (its only mode)."""
    course = work / "plain-course"
    shutil.rmtree(course, ignore_errors=True)
    plain_nbgrader.setup_course(course, names)
    for student in sorted(subs.iterdir()):
        for nb_path in student.glob("*.ipynb"):
            dest = course / "submitted" / student.name / nb_path.stem
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(nb_path, dest / nb_path.name)
    os.environ["WORKBOOK_GRADING"] = "1"  # the same small training configuration as ours
    t0 = time.perf_counter()
    for name in names:
        plain_nbgrader._nbgrader(course, "autograde", name, "--force")
    return time.perf_counter() - t0


def preload_start_seconds(work: Path) -> float:
    """Starting the kernel fork server (torch and friends imported once per run, not per notebook)."""
    if sandbox.available() or not preload.wanted() or os.geteuid() != 0:
        return 0.0
    t0 = time.perf_counter()
    with preload.running(work / "preload-start", kernel_env()):
        return time.perf_counter() - t0


def split(results: list) -> dict[str, float]:
    """Mean seconds per graded notebook in each part of the job."""
    graded = [r for r in results if r.status == "graded" and r.timings]
    parts: dict[str, float] = {}
    for r in graded:
        for key, value in r.timings.items():
            parts[key] = parts.get(key, 0.0) + value / len(graded)
        known = sum(r.timings.values())
        parts["rebuild+sandbox+io"] = parts.get("rebuild+sandbox+io", 0.0) + max(0.0, r.seconds - known) / len(graded)
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--skip-plain", action="store_true")
    args = parser.parse_args()
    names = paths.notebook_names()
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    subs = work / "class"
    n = build_class(subs, args.learners, names)
    print(
        f"class: {args.learners} learners, {n} notebooks ({', '.join(KINDS)}), sandbox: "
        f"{'on' if not sandbox.available() else 'OFF (' + sandbox.available() + ')'}"
    )
    t0 = time.perf_counter()
    cache = work / "reference"
    grade.prepare(ResultsFolder(cache), names)  # nbgrader course and release, once
    print(f"per-course set-up, done once (course, release): {time.perf_counter() - t0:.1f} s")
    t1, res1 = run_grade(subs, work / "j1", 1, cache)
    tn, _ = run_grade(subs, work / "jn", args.jobs, cache)
    print(f"\n{'run':<34} {'seconds':>8} {'notebooks/min':>14}")
    print(f"{'grade --jobs 1':<34} {t1:>8.1f} {60 * n / t1:>14.1f}")
    print(f"{f'grade --jobs {args.jobs}':<34} {tn:>8.1f} {60 * n / tn:>14.1f}")
    if not args.skip_plain:
        tp = plain_serial(subs, names, work)
        print(f"{'plain nbgrader autograde (serial)':<34} {tp:>8.1f} {60 * n / tp:>14.1f}")
        print(f"throughput vs plain nbgrader: {tp / tn:.2f}x at {args.jobs} jobs, {tp / t1:.2f}x at 1 job")
    print(f"\nonce per run: kernel fork server start {preload_start_seconds(work):.2f} s (included above)")
    print("per graded notebook (jobs=1), mean seconds:")
    for key, value in split(res1).items():
        print(f"  {key:<22} {value:6.2f}")
    floors = {name: floor_seconds(name) for name in names}
    graded = [r for r in res1 if r.status == "graded"]
    per_nb = {name: [r.seconds for r in graded if r.notebook == name] for name in names}
    print(f"\n{'notebook':<34} {'floor s':>8} {'job s':>7} {'ratio':>6}")
    for name in names:
        if per_nb[name]:
            mean = sum(per_nb[name]) / len(per_nb[name])
            print(f"{name:<34} {floors[name]:>8.2f} {mean:>7.2f} {mean / floors[name]:>6.2f}")
    print(f"\nwall per notebook at jobs=1 (incl. gradebook, feedback, reports): {t1 / n:.2f} s")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
