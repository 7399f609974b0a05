"""Turn a percent-format draft into an instructor source notebook with nbgrader metadata.

A maintainer's tool for starting a notebook; once written, solutions/NN_*.ipynb is the
source of truth and is edited in Jupyter. Cell headers in the draft:

    # %% [markdown]                       text cell (lines start with "# ")
    # %%                                  plain code cell (demo, plot, toy call)
    # %% [setup] id=setup                 locked code cell (imports, seeds, device)
    # %% [solution] id=sdpa               learner answer cell (### BEGIN/END SOLUTION inside)
    # %% [test] id=test_sdpa points=2     autograded test cell (may hold hidden tests)
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import nbformat

_HEADER = re.compile(r"^# %%(?: \[(\w+)\])?(.*)$")


def nbgrader_meta(kind: str, grade_id: str, points: float = 0) -> dict:
    """The nbgrader (schema 3) metadata of a cell of the given kind."""
    meta = {"schema_version": 3, "grade_id": grade_id, "task": False}
    if kind == "solution":
        meta.update(grade=False, solution=True, locked=False)
    elif kind == "test":
        meta.update(grade=True, solution=False, locked=True, points=points)
    else:  # setup / locked
        meta.update(grade=False, solution=False, locked=True)
    return meta


def _options(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split() if "=" in part)


def _make_cell(kind: str | None, options: dict[str, str], lines: list[str]):
    body = "\n".join(lines).strip("\n")
    if kind == "markdown":
        text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines)
        return nbformat.v4.new_markdown_cell(text.strip("\n"))
    cell = nbformat.v4.new_code_cell(body)
    if kind in ("solution", "test", "setup"):
        if "id" not in options:
            raise ValueError(f"a [{kind}] cell needs id=...: {body[:60]!r}")
        points = float(options.get("points", 0))
        cell.metadata["nbgrader"] = nbgrader_meta(kind, options["id"], points)
    elif kind is not None:
        raise ValueError(f"unknown cell kind [{kind}]")
    return cell


def draft_to_notebook(text: str) -> nbformat.NotebookNode:
    """Parse a percent-format draft into a notebook."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    current: tuple[str | None, dict[str, str]] | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _HEADER.match(line)
        if match:
            if current is not None:
                nb.cells.append(_make_cell(current[0], current[1], lines))
            current, lines = (match.group(1), _options(match.group(2))), []
        elif current is not None:
            lines.append(line)
    if current is not None:
        nb.cells.append(_make_cell(current[0], current[1], lines))
    return nb


def main(argv: list[str] | None = None) -> int:
    """CLI: python -m autograder author DRAFT.py -o solutions/NN_topic.ipynb."""
    parser = argparse.ArgumentParser(prog="autograder author", description=main.__doc__)
    parser.add_argument("draft", type=Path)
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    nb = draft_to_notebook(args.draft.read_text())
    nbformat.write(nb, args.out)
    print(f"wrote {args.out} ({len(nb.cells)} cells)")
    return 0
