"""Student ids: which names the grader accepts as one, and how a message quotes a name it does not."""

from __future__ import annotations

import re

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}")  # always used with fullmatch


def valid_id(student: object) -> bool:
    """A student id the grader accepts: 1-64 of letters, digits and _.@+-, starting with a letter or digit."""
    return isinstance(student, str) and STUDENT_ID.fullmatch(student) is not None


def show(name: str, limit: int = 80) -> str:
    """A name as a reason quotes it: in quotes, control and invisible characters escaped, cut short."""
    text = repr(name)
    return text if len(text) <= limit else f"{text[: limit - 4]}…{text[0]} ({len(name)} characters)"
