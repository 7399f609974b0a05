"""What must never reach a learner: solution code and hidden-test source, per notebook."""

from __future__ import annotations

import re

import nbformat

from autograder import paths
from autograder.material import answers

_BLOCK = {
    "solution": re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S),
    "hidden": re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S),
}


def secret_lines(name: str, kind: str) -> set[str]:
    """Distinctive lines inside the solution or hidden-test blocks of a source notebook.

    Lines that also occur outside those blocks (shown to learners anyway) are excluded.
    """
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    inside, outside = set(), set()
    for cell in nb.cells:
        blocks = _BLOCK[kind].findall(cell.source)
        rest = _BLOCK[kind].sub("", cell.source)
        for block in blocks:
            inside |= {ln.strip() for ln in block.splitlines()}
        outside |= {ln.strip() for ln in rest.splitlines()}
        if kind == "solution" and not answers.is_answer(cell):
            outside |= {ln.strip() for ln in cell.source.splitlines()}
    shown = "\n".join(outside)  # a secret line that is part of a shown line is not secret
    return {ln for ln in inside - outside if len(ln) >= 25 and not ln.startswith("#") and ln not in shown}


def leaked(text: str, name: str) -> list[str]:
    """The secret lines of notebook `name` that occur in `text`."""
    secrets = secret_lines(name, "solution") | secret_lines(name, "hidden")
    return sorted(ln for ln in secrets if ln in text)
