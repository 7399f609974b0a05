"""A gradebook sheet as CSV text: its columns (notebook, LMS name), every cell safe to open in a spreadsheet.

What the reports (`report`) and the LMS imports (`exports`) share.
"""

from __future__ import annotations

Columns = list[tuple[str, str]]  # (notebook, its name in the LMS), as autograder.run.assignments gives them

# OWASP's CSV injection advice: a cell a spreadsheet would read as a formula starts with one
# of these; it gets a leading single quote, and the cell is quoted.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """One CSV field: quoted when needed, and neutralised (leading ') if a spreadsheet would run it."""
    text = str(value)
    risky = text.startswith(FORMULA_STARTS)
    if risky:
        text = "'" + text
    if risky or any(ch in text for ch in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(rows: list[list[object]]) -> str:
    """CSV text, every field through csv_cell (the standard module cannot quote only some fields)."""
    return "".join(",".join(csv_cell(v) for v in row) + "\n" for row in rows)
