"""Self-check a notebook: run it top to bottom, as grading does (reduced sizes), and print its visible tests.

This file runs on its own (the student bundle ships it as self_check.py): it needs only
nbformat and nbclient, which JupyterLab installs. `python self_check.py 01_…ipynb` runs a
copy of the notebook in a fresh kernel with WORKBOOK_GRADING=1 (training cells shrink, as
they do when the notebook is graded), then prints a ✓/✗ table of its test cells and the
first cell, if any, that stopped the notebook. Exit 0: every visible test passed and the
notebook ran top to bottom; 1: something failed; 2: no such notebook.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

try:  # the table the notebook's own self_check() prints; in the student bundle workbook.py is beside this file
    from autograder.workbook import render_table
except ImportError:  # pragma: no cover - the bundle (run even as python -I, which leaves this folder off sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from workbook import render_table  # type: ignore[import-not-found,no-redef]  # the bundle's copy
from autograder.checks import perimeter  # the grader's answer scan (the bundle carries its files)

CALLS_CHECK = re.compile(r"\bcheck\.(close|equal|true|raises)\(")


def _nbgrader(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def kernel_message(cell) -> str:
    """A learner-facing message for a failed test cell (no traceback, so no hidden source); '' if it passed."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            ename, evalue = out.get("ename", "Error"), str(out.get("evalue", ""))
            if ename == "NotImplementedError":
                return "NotImplementedError: an answer cell this test uses is not implemented yet"
            if ename == "CheckFailure":
                return evalue
            return f"{ename}: {evalue}"[:2000]
    return ""


_error = kernel_message


def run(nb: nbformat.NotebookNode, folder: Path, timeout: int = 900) -> str:
    """Execute the notebook in `folder`, reduced sizes, errors kept in its outputs; returns why the run died, if it did."""
    # the kernel's environment only (this process's stays as it was): training cells run small
    env = {"MPLBACKEND": "Agg", **os.environ, "WORKBOOK_GRADING": "1"}
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    try:
        client.execute(env=env)
    except Exception as exc:  # noqa: BLE001 - a cell over its time, a kernel that died: the run stopped there
        return f"the run stopped: {type(exc).__name__}: {str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else ''}"
    return ""


def parts(nb) -> list[tuple[str, str, str, float | None]]:
    """(test, status, message, points) for every test cell and written answer."""
    rows: list[tuple[str, str, str, float | None]] = []
    for cell in nb.cells:
        meta = _nbgrader(cell)
        points = float(meta.get("points", 0) or 0)
        if meta.get("grade") and meta.get("solution") and cell.cell_type == "markdown":
            rows.append((meta.get("grade_id", "?"), "written", "graded by a person after you hand in", points))
        elif meta.get("grade") and not meta.get("solution"):
            if not CALLS_CHECK.search(cell.source):
                rows.append((meta.get("grade_id", "?"), "hidden", "checked by hidden tests when graded", points))
                continue
            error = _error(cell) or rule_finding(nb, cell)
            rows.append((meta.get("grade_id", "?"), "failed" if error else "passed", error, points))
    return rows


def rule_finding(nb, cell) -> str:
    """The first way around its rule the grader's scan finds in the answer cells the rule covers, or ''.

    A test cell stating a rule (`check.forbidden(...)`) is judged as grading judges it: the refusal
    ran in the notebook (workbook.Check.forbidden), and the answers' source is read here.
    """
    rules = perimeter.stated_rules(cell.source)
    if not rules:
        return ""
    sources = {
        _nbgrader(c)["grade_id"]: c.source for c in nb.cells if _nbgrader(c).get("solution") and c.cell_type == "code"
    }
    given = [c.source for c in nb.cells if c.cell_type == "code" and not _nbgrader(c).get("solution")]
    for rule in rules:
        counted = perimeter.scan(sources, rule.names, rule.cells, given)
        if counted:
            return f"{rule.message} ({counted[0]})"
    return ""


def stopped_at(nb) -> str:
    """The first cell outside the tests that raised, in words, or '' if the notebook ran top to bottom."""
    for i, cell in enumerate(nb.cells, start=1):
        meta = _nbgrader(cell)
        if cell.cell_type != "code" or (meta.get("grade") and not meta.get("solution")):
            continue
        error = _error(cell)
        if error:
            what = f"answer cell {meta['grade_id']!r}" if meta.get("solution") else "a cell"
            first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")[:60]
            return f"{what} (cell {i}: {first}) raised {error}"
    return ""


def render(name: str, rows: list[tuple[str, str, str, float | None]], stop: str) -> str:
    """The notebook's own self-check table, then whether the notebook ran top to bottom."""
    run = f"The notebook does NOT run top to bottom: {stop}." if stop else "The notebook runs top to bottom."
    return f"Self-check of {name} (visible tests only, reduced sizes as in grading)\n\n{render_table(rows)}\n{run}"


def main(argv: list[str] | None = None) -> int:
    """Self-check NOTEBOOK; exit 1 if a visible test failed or the notebook stops before its end."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python self_check.py NOTEBOOK.ipynb", file=sys.stderr)
        return 2
    path = Path(args[0]).resolve()
    if not path.is_file():
        print(f"ERROR: no such notebook: {args[0]}", file=sys.stderr)
        return 2
    nb = nbformat.read(path, as_version=4)
    died = run(nb, path.parent)
    rows, stop = parts(nb), stopped_at(nb) or died
    print(render(path.name, rows, stop))
    return 1 if stop or any(r[1] == "failed" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
