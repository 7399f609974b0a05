"""The attack table: points each attack in tests/attacks/ earns here and under plain nbgrader.

    python benchmarks/attack_table.py [--jobs 2]

"Plain nbgrader" runs the instructor's notebook, hidden tests included, with the attack's
answers in one ordinary kernel and gives a test cell its points when it raises nothing
(what `nbgrader autograde` does). "Here" grades the same submissions with `grade`.
Every attack starts from answers that earn nothing, so every point is stolen.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from attack_support import NB01, ZERO_ANSWERS, attack_files, header, tamper  # noqa: E402
from support import make_submission, tryout  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.material import answers  # noqa: E402
from autograder.run import grade  # noqa: E402

# Attacks that harm the host when run unsandboxed (plain nbgrader has no sandbox): not run that way.
HOST_HARMFUL = {
    "fork_bomb", "memory_hog", "kill_others", "kill_kernel", "network", "stall_kernel", "output_flood",
    "disk_hog", "cpu_hog", "nested_userns", "read_hidden_tests", "symlink_to_reference", "huge_reply",
    "disk_many_files", "deep_folders",
}  # fmt: skip


def plain_points(path: Path) -> float:
    """Points under plain nbgrader semantics; NaN where it cannot be run safely or needs nbgrader's cell checks."""
    if header(path, "tamper") or path.stem in HOST_HARMFUL:
        return float("nan")
    try:
        verdicts = tryout(NB01, path)
    except Exception:  # noqa: BLE001 - a plain kernel the attack hung or killed earns what it had: nothing shown
        return float("nan")
    source = nbformat.read(paths.source_notebook(NB01), as_version=4)
    points = {
        answers.grade_id(c): float(c.metadata.nbgrader.get("points", 0)) for c in source.cells if answers.is_test(c)
    }
    return sum(points[t] for t, v in verdicts.items() if v == "ok")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        for path in attack_files():
            nb = make_submission(NB01, path, defaults=ZERO_ANSWERS)
            how = header(path, "tamper")
            nb = tamper(nb, how) if how else nb
            (subs / path.stem).mkdir(parents=True)
            nbformat.write(nb, subs / path.stem / f"{NB01}.ipynb")
        results = {
            r.student_id: r
            for r in grade.grade(grade.Options(submissions=subs, out=Path(tmp) / "out", jobs=args.jobs, quiet=True))
        }
    print(f"| attack | plain nbgrader | here (of {results[attack_files()[0].stem].max_score:g}) |")
    print("|---|---|---|")
    for path in attack_files():
        plain = plain_points(path)
        mine = results[path.stem]
        shown = "not run (tampering, harms the host, or hung a plain kernel)" if plain != plain else f"{plain:g}"
        print(f"| {path.stem} | {shown} | {mine.score:g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
