"""check: a learner's self-check - run a notebook's visible tests, print a per-part table."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import answers, paths
from autograder.execute import execute
from autograder.feedback import strip_hidden
from autograder.limits import Limits
from autograder.workbook import render_table
from autograder.worker import kernel_message

_CALLS_CHECK = re.compile(r"\bcheck\.(close|equal|true|raises)\(")


@dataclass
class PartResult:
    """One test cell as the learner sees it."""

    name: str
    points: float
    status: str  # "passed" | "failed" | "hidden" | "written"
    message: str = ""


def parts(nb) -> list[PartResult]:
    """Per visible test cell: passed or failed with its message; hidden-only cells marked."""
    out = []
    for cell in nb.cells:
        if answers.is_written(cell):
            points = float(cell.metadata.nbgrader.get("points", 0))
            out.append(PartResult(answers.nbgrader_id(cell), points, "written", "graded by a person after you hand in"))
        if not answers.is_test(cell):
            continue
        points = float(cell.metadata.nbgrader.get("points", 0))
        if not _CALLS_CHECK.search(cell.source):
            out.append(PartResult(answers.nbgrader_id(cell), points, "hidden", "checked by hidden tests when graded"))
            continue
        message = kernel_message(cell)
        out.append(PartResult(answers.nbgrader_id(cell), points, "failed" if message else "passed", message))
    return out


def render(name: str, results: list[PartResult]) -> str:
    """The same table the notebook's self_check() prints, with points."""
    rows: list[tuple[str, str, str, float | None]] = [(r.name, r.status, r.message, r.points) for r in results]
    return f"Self-check of {name} (visible tests only)\n\n" + render_table(rows)


def self_check(path: Path, timeout: int = 600) -> list[PartResult]:
    """Execute a copy of the notebook (hidden tests removed) next to the helper module."""
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
        execute(
            nb, work, {**os.environ, "MPLBACKEND": "Agg"}, Limits(cell_seconds=timeout, notebook_seconds=4 * timeout)
        )
    return parts(nb)


def main(argv: list[str] | None = None) -> int:
    """Run the visible tests of NOTEBOOK and print a per-part table (exit 1 if any failed)."""
    parser = argparse.ArgumentParser(prog="python -m autograder check", description=main.__doc__)
    parser.add_argument("notebook", type=Path)
    args = parser.parse_args(argv)
    if not args.notebook.is_file():
        print(f"ERROR: no such notebook: {args.notebook}", file=sys.stderr)
        return 2
    results = self_check(args.notebook.resolve())
    print(render(args.notebook.name, results))
    return 1 if any(r.status == "failed" for r in results) else 0
