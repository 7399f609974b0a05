"""What each notebook asks for, read from its cells: README's notebook table and the self-check call.

Both are generated from the source notebooks (answer cells, test cells, written questions), so
that neither can leave out a part a learner must write: `python -m autograder.material.contents` rewrites
README's table and each solution notebook's self-check cell; tests/test_contents.py fails when
either is out of date.
"""

from __future__ import annotations

import ast
import re
import sys

import nbformat

from autograder import paths
from autograder.material import answers, markup

_BLOCK = re.compile(r"(<!-- notebooks:start -->\n).*?(<!-- notebooks:end -->)", re.S)
SELF_CHECK_IMPORT = "from workbook import self_check"


def defined_names(source: str) -> list[str]:
    """The functions and classes an answer cell asks the learner to write (its grade_id's contract), in order.

    A definition the cell gives whole (09's KVCache, graded in 08) holds no solution region and is
    left out: the table says what a learner writes, not what the cell holds.
    """
    try:
        tree = ast.parse(source)  # the markers are comments: line numbers stay the source's
    except SyntaxError:
        return []
    marks = markup.solution_starts(source)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    asked = [n for n in defs if any(n.lineno <= m <= (n.end_lineno or n.lineno) for m in marks)]
    return [n.name for n in (asked if marks else defs)]


def implemented(nb) -> list[str]:
    """Every name the learner writes, over the answer cells (a cell defining none is named by its grade_id)."""
    names: list[str] = []
    for cell in nb.cells:
        if answers.is_answer(cell):
            for name in defined_names(cell.source) or [answers.nbgrader_id(cell)]:
                if name not in names:
                    names.append(name)
    return names


def graded_parts(nb) -> list[tuple[str, float, bool]]:
    """(grade_id, points, written) of every graded cell, in notebook order."""
    return [
        (answers.nbgrader_id(c), float(c.metadata.nbgrader.get("points", 0)), answers.is_written(c))
        for c in nb.cells
        if answers.is_test(c) or answers.is_written(c)
    ]


def title(nb) -> str:
    """The notebook's title, without its number: '# 05 · A Transformer encoder classifier' -> the rest."""
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    heading = next((line for line in first.splitlines() if line.startswith("# ")), "# ")
    return heading[2:].split("·", 1)[-1].strip()


def table_row(name: str) -> str:
    """One README row: number, linked title, what the learner implements, written answers and points."""
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    parts = graded_parts(nb)
    written = sum(1 for _, _, w in parts if w)
    code = ", ".join(f"`{n}`" for n in implemented(nb))
    questions = f"; {written} written answer{'s' if written != 1 else ''}" if written else ""
    points = sum(p for _, p, _ in parts)
    return f"| {name[:2]} | [{title(nb)}](notebooks/{name}.ipynb) | {code}{questions} | {points:g} |"


def notebooks_table(names: list[str]) -> str:
    """README's table of the notebooks and what each asks a learner to write."""
    rows = ["| # | notebook | you implement | points |", "|---|---|---|---|"]
    return "\n".join(rows + [table_row(n) for n in names]) + "\n"


def self_check_source(nb) -> str:
    """The self-check cell: the call that prints the same table as `python -m autograder check`."""
    lines = [f"    {gid!r}: {points:g}," for gid, points, _ in graded_parts(nb)]
    written = [gid for gid, _, w in graded_parts(nb) if w]
    return "\n".join([SELF_CHECK_IMPORT, "", "self_check({", *lines, f"}}, written={written!r})"])


def is_self_check(cell) -> bool:
    """The cell under 'Check your work' that calls self_check."""
    return cell.cell_type == "code" and cell.source.startswith(SELF_CHECK_IMPORT)


def sync_notebook(name: str) -> bool:
    """Rewrite a solution notebook's self-check cell from its graded cells; True if it changed."""
    path = paths.source_notebook(name)
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if is_self_check(c)]
    want = self_check_source(nb)
    changed = [c for c in cells if c.source != want]
    for cell in changed:
        cell.source = want
    if changed:
        nbformat.write(nb, path)
    return bool(changed)


def update_readme(names: list[str]) -> bool:
    """Rewrite README's notebook table; True if it changed."""
    readme = paths.ROOT / "README.md"
    text = readme.read_text()
    new = _BLOCK.sub(lambda m: m.group(1) + notebooks_table(names) + m.group(2), text)
    if new != text:
        readme.write_text(new)
    return new != text


def reexecute_command(name: str) -> str:
    """The command that re-executes a solution notebook in place, refreshing the outputs nbval compares."""
    return f"jupyter nbconvert --to notebook --execute --inplace solutions/{name}.ipynb"


def main() -> int:
    """Bring README's table and every solution's self-check cell up to date with the notebooks."""
    names = paths.notebook_names()
    for name in names:
        if sync_notebook(name):
            print(f"self-check cell rewritten: {name}; re-execute it: {reexecute_command(name)}")
    if update_readme(names):
        print("README notebook table rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
