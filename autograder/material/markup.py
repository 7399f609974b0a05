"""nbgrader's cell markup: the solution and hidden-test markers, the stubs release puts in their place.

The one place these are spelled; every module that reads, strips or replaces them imports them here.
"""

from __future__ import annotations

import re

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"
END_HIDDEN_TESTS = "### END HIDDEN TESTS"

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"  # nbgrader's ClearSolutions.code_stub, as we set it
TEXT_STUB = "YOUR ANSWER HERE"  # nbgrader's stub for a written (markdown) answer

HIDDEN_NOTE = "# (hidden tests run here when your notebook is graded)\n"
_HIDDEN = re.compile(
    rf"^[ \t]*{re.escape(BEGIN_HIDDEN_TESTS)}.*?^[ \t]*{re.escape(END_HIDDEN_TESTS)}[ \t]*\n?", re.S | re.M
)


def strip_hidden(source: str) -> str:
    """A test cell's source with each hidden block replaced by a one-line note."""
    return _HIDDEN.sub(HIDDEN_NOTE, source)


def has_hidden(source: str) -> bool:
    """Whether a test cell's source holds a hidden block's start marker anywhere."""
    return BEGIN_HIDDEN_TESTS in source


def hidden_lines(source: str) -> set[int]:
    """The line numbers (from 1) inside the cell's hidden blocks."""
    inside, lines = False, set()
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker.startswith(BEGIN_HIDDEN_TESTS):
            inside = True
        elif marker.startswith(END_HIDDEN_TESTS):
            inside = False
        elif inside:
            lines.add(number)
    return lines


def solution_starts(source: str) -> list[int]:
    """The line numbers (from 1) of the cell's BEGIN SOLUTION markers."""
    return [i for i, line in enumerate(source.splitlines(), 1) if line.strip() == BEGIN_SOLUTION]


def strip_markers(source: str) -> str:
    """A solution cell's source without its ### BEGIN/END SOLUTION lines."""
    keep = [ln for ln in source.splitlines() if ln.strip() not in (BEGIN_SOLUTION, END_SOLUTION)]
    return "\n".join(keep) + "\n"


def code_stub(source: str) -> str:
    """A solution cell's student version (what release shows): each solution region replaced by the stub."""
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip() == BEGIN_SOLUTION:
            indent = line[: len(line) - len(line.lstrip())]
            lines += [indent + stub for stub in CODE_STUB.splitlines()]
            inside = True
        elif line.strip() == END_SOLUTION:
            inside = False
        elif not inside:
            lines.append(line)
    return "\n".join(lines)
