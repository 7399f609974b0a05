"""check: a learner's self-check - run a notebook top to bottom as grading does, print its visible tests.

The same run as the student bundle's self_check.py (autograder.checks.selfcheck), on a copy of the
notebook (hidden tests removed) beside the helper module, in a temporary folder.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder import paths
from autograder.checks import selfcheck
from autograder.material import answers
from autograder.material.markup import strip_hidden


def main(argv: list[str] | None = None) -> int:
    """Run NOTEBOOK top to bottom (reduced sizes) and print a per-part table (exit 1 if anything failed)."""
    parser = argparse.ArgumentParser(prog="python -m autograder check", description=main.__doc__)
    parser.add_argument("notebook", type=Path)
    args = parser.parse_args(argv)
    if not args.notebook.is_file():
        print(f"ERROR: no such notebook: {args.notebook}", file=sys.stderr)
        return 2
    path = args.notebook.resolve()
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if answers.is_test(cell):
            cell.source = strip_hidden(cell.source)
    with tempfile.TemporaryDirectory(prefix="check-") as tmp:
        work = Path(tmp)
        helper = path.parent / "workbook.py"
        shutil.copyfile(helper if helper.exists() else paths.WORKBOOK, work / "workbook.py")
        for extra in path.parent.glob("*.py"):  # the learner's own helper modules, if any
            if not (work / extra.name).exists():
                shutil.copyfile(extra, work / extra.name)
        died = selfcheck.run(nb, work)
    rows, stop = selfcheck.parts(nb), selfcheck.stopped_at(nb) or died
    print(selfcheck.render(path.name, rows, stop))
    return 1 if stop or any(r[1] == "failed" for r in rows) else 0
