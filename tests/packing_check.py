"""Check the catalogue's packing against grading each wrong entry alone (about 6 min on 2 cores; not in the suite).

    python tests/packing_check.py

Grades every wrong entry alone and in its pack, in one run (so every hidden input is the
same), and compares per entry: the tests that read its cells must lose the same points with
the same messages both ways, and alone no other test may lose any (else tests/dependencies.py
missed a dependency). Run it when the dependency reading or the packing changes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat
from conftest import ROOT  # noqa: F401 - puts the project and tests/ on sys.path
from support import catalogue_submissions, entry_tests, make_submission

from autograder import paths
from autograder.kernel import launchers
from autograder.kernel.limits import Limits
from autograder.run import grade


def _lost(result) -> dict[str, str]:
    return {t.name: t.message for t in result.tests if t.score < t.max_score and not t.manual}


def main() -> int:
    subs = Path(tempfile.mkdtemp(prefix="packing-check-")) / "subs"
    plan = []  # (entry, notebook, pack's key, its own key, the pack)
    for name in paths.notebook_names():
        for student, files in (s for s in catalogue_submissions(name) if "-wrong-" in s[0]):
            alone = {f: f"{name[:2]}-alone-{f.stem}".replace("_", "-") for f in files}
            for key, entries in [(student, files)] + [(alone[f], [f]) for f in files]:
                (subs / key).mkdir(parents=True)
                nbformat.write(make_submission(name, entries), subs / key / f"{name}.ipynb")
            plan += [(f, name, student, alone[f], files) for f in files]
    opts = grade.Options(
        submissions=subs,
        out=subs.parent / "out",
        jobs=2,
        sandbox=launchers.choose(trusted=True),
        limits=Limits(),
        quiet=True,
    )
    results = {r.key: r for r in grade.grade(opts)}
    differ = 0
    for entry, name, packed, alone, files in plan:
        reach = entry_tests(name, files)[entry]
        in_pack, by_itself = _lost(results[f"{packed}/{name}"]), _lost(results[f"{alone}/{name}"])
        missed = sorted(set(by_itself) - reach)
        if missed or {t: m for t, m in in_pack.items() if t in reach} != {
            t: m for t, m in by_itself.items() if t in reach
        }:
            differ += 1
            print(
                f"DIFFERS {name[:2]}/{entry.name}: in its pack {sorted(in_pack)}, alone {sorted(by_itself)}, missed {missed}"
            )
    print(f"{len(plan)} wrong entries in {len({(p[1], p[2]) for p in plan})} packs: {differ} differ from grading alone")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
