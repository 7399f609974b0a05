"""demo: release the notebooks, grade the sample submissions in data/, print the grades."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from autograder import paths
from autograder.gradebook import release
from autograder.kernel import launchers
from autograder.kernel.limits import Limits
from autograder.run import grade, report


def main(argv: list[str] | None = None) -> int:
    """Release, then grade data/submissions/ into build/demo-results and print the table."""
    parser = argparse.ArgumentParser(prog="python -m autograder demo", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=paths.BUILD / "demo-results")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    written = release.release_notebooks(paths.NOTEBOOKS)
    bundle = release.write_bundle(paths.NOTEBOOKS, paths.BUILD / release.BUNDLE_NAME)
    print(f"released {len(written)} notebook(s) to {paths.NOTEBOOKS}/ and {bundle}")
    how = launchers.choose(trusted=True)  # the sample submissions are the project's own
    print(f"sandbox: {how.mode}" + ("" if how.sandboxed else " (none runs here; the samples are trusted code)"))
    opts = grade.Options(
        submissions=paths.DATA / "submissions",
        out=args.out.resolve(),
        jobs=args.jobs or grade.default_jobs(),
        sandbox=how,
        limits=Limits(),
        similarity=True,  # ada's notebooks are the reference answers: the report finds them
    )
    results = grade.grade(opts)
    print(grade.table(results))
    count, points = report.pending_points(results)
    if count:
        print(
            f"\n{count} written answer(s), {points:g} point(s), await a person (not counted above): "
            f"python -m autograder formgrader {args.out}, or python -m autograder mark"
        )
    print(f"\ngrades.csv, results.json and feedback/ in {args.out} ({time.perf_counter() - t0:.0f} s)")
    return 0
