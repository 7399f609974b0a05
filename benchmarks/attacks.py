"""The attack catalogue against this grader and against plain nbgrader, as a table.

    python benchmarks/attacks.py

Every attack in tests/attacks/ starts from answers that earn 0 points, so any point is
stolen. Attacks that would harm the machine outside a sandbox (fork bomb, memory hog,
killing processes, writing outside the folder, flooding the output) are not run
against plain nbgrader. Also prints the grading-time cost of the sandbox per notebook.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import plain_nbgrader  # noqa: E402
from attack_support import NB01, ZERO_ANSWERS, attack_files, header, tamper  # noqa: E402
from support import make_submission  # noqa: E402

from autograder.kernel import launchers, sandbox  # noqa: E402
from autograder.kernel.limits import Limits  # noqa: E402
from autograder.results_folder import ResultsFolder  # noqa: E402
from autograder.run import grade  # noqa: E402

HOST_HARMFUL = {"fork_bomb", "memory_hog", "kill_others", "write_outside", "output_flood", "stall_kernel", "network"}


def attack_notebook(path: Path):
    nb = make_submission(NB01, path, defaults=ZERO_ANSWERS)
    how = header(path, "tamper")
    return tamper(nb, how) if how else nb


def ours(work: Path, unsafe: bool) -> tuple[dict, float]:
    subs = work / ("subs-unsafe" if unsafe else "subs")
    for path in attack_files():
        (subs / path.stem).mkdir(parents=True)
        nbformat.write(attack_notebook(path), subs / path.stem / f"{NB01}.ipynb")
    (subs / "honest").mkdir()
    nbformat.write(make_submission(NB01, None), subs / "honest" / f"{NB01}.ipynb")
    limits = Limits(cell_seconds=20, notebook_seconds=120, memory_bytes=3 * 2**30, processes=128)
    opts = grade.Options(
        submissions=subs,
        out=work / ("out-unsafe" if unsafe else "out"),
        jobs=1,
        sandbox=launchers.choose(unsafe=unsafe),
        limits=limits,
        quiet=True,
    )
    t0 = time.perf_counter()
    results = {r.student_id: r for r in grade.grade(opts)}
    return results, time.perf_counter() - t0


def main() -> int:
    if sandbox.available():
        print(f"no sandbox here: {sandbox.available()}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="attacks-"))
    results, _ = ours(work, unsafe=False)
    course = work / "plain"
    plain_nbgrader.setup_course(course, [NB01])
    print(f"{'attack':<28} {'ours: points':>12} {'flagged':>8}   {'plain nbgrader: points':>22}")
    max_points = results["honest"].max_score
    for path in attack_files():
        r = results[path.stem]
        if path.stem in HOST_HARMFUL:
            plain = "not run (harms host)"
        else:
            score, _, _, log = plain_nbgrader.autograde(
                course, NB01, path.stem.replace("_", "-"), attack_notebook(path)
            )
            plain = f"{score:g} / {max_points:g}" if score is not None else "autograde failed"
        flagged = "yes" if (r.flags or r.errors) else "no"
        print(f"{path.stem:<28} {r.score:>5g} / {r.max_score:<4g} {flagged:>8}   {plain:>22}")
    honest = results["honest"]
    print(f"{'(honest learner)':<28} {honest.score:>5g} / {honest.max_score:<4g}")
    # the sandbox's cost: the same honest notebook graded with and without it
    costs = []
    for unsafe in (False, True):
        sub = work / f"cost-{unsafe}"
        (sub / "honest").mkdir(parents=True)
        nbformat.write(make_submission(NB01, None), sub / "honest" / f"{NB01}.ipynb")
        runs = []
        for rep in range(3):
            out = work / f"cost-out-{unsafe}-{rep}"
            opts = grade.Options(
                submissions=sub, out=out, jobs=1, sandbox=launchers.choose(unsafe=unsafe), limits=Limits(), quiet=True
            )
            grade.grade(opts)
            runs.append(next(iter(ResultsFolder(out).states().values())).result.seconds)
        costs.append(min(runs))
    print(
        f"\nper-notebook job time (best of 3): sandboxed {costs[0]:.2f} s, --unsafe {costs[1]:.2f} s, "
        f"ratio {costs[0] / costs[1]:.2f}"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
