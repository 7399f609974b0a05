"""Python source parsed in the grader, past CPython 3.11's AST recursion-depth race (gh-106905).

Before 3.11.8, the AST constructor keeps its recursion depth in the interpreter's state, not the
thread's: a parse that starts while another is being built (another thread, or a finaliser that
formats a traceback, which parses its line for the carets) makes the outer one raise
``SystemError: AST constructor recursion depth mismatch``. One graded batch of the attacks hit it
once, in the parse of the instructor's own notebook: the learner got an error row instead of a grade.
The source was fine; parsing it again is the fix.
"""

from __future__ import annotations

import ast

ATTEMPTS = 3
_RACE = "AST constructor recursion depth mismatch"


def parse(source: str) -> ast.Module:
    """`ast.parse(source)`, once more (up to ATTEMPTS in all) when CPython's depth race alone stopped it."""
    for _ in range(ATTEMPTS - 1):
        try:
            return ast.parse(source)
        except SystemError as exc:
            if _RACE not in str(exc):
                raise
    return ast.parse(source)
