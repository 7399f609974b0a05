"""Patch sections of answer files: a cell's reference answer plus a change, written as lines to find and replace.

A patch section holds one or more blocks, each a run of lines marked "# = " (a line kept, for context),
"# - " (a reference line removed) or "# + " (a line added); blank lines separate blocks. A block's
kept and removed lines, in order, must occur exactly once in the reference answer, as whole lines; the
block puts its kept and added lines there instead. A marker alone ("# -") stands for an empty line.
"""

from __future__ import annotations

from dataclasses import dataclass

KEEP, REMOVE, ADD = "=", "-", "+"


class PatchError(ValueError):
    """A patch section that does not apply to its reference answer."""


@dataclass(frozen=True)
class Block:
    """One change: the reference lines it finds (old) and the lines it puts there (new)."""

    old: tuple[str, ...]
    new: tuple[str, ...]


def _marked(line: str) -> tuple[str, str] | None:
    """(marker, text) of a patch line, or None for any other line."""
    if len(line) < 3 or line[:2] != "# " or line[2] not in (KEEP, REMOVE, ADD):
        return None
    if len(line) == 3:
        return line[2], ""
    return (line[2], line[4:]) if line[3] == " " else None


def parse_blocks(body: str, where: str) -> list[Block]:
    """The blocks of a patch section's body; `where` names the entry and cell in errors."""
    blocks: list[Block] = []
    run: list[tuple[str, str]] = []
    for number, line in enumerate([*body.splitlines(), ""], 1):
        if not line.strip():
            if run:
                blocks.append(_block(run, where))
            run = []
            continue
        marked = _marked(line)
        if marked is None:
            raise PatchError(f"{where}: line {number} of the patch is not '# = ', '# - ' or '# + ': {line!r}")
        run.append(marked)
    if not blocks:
        raise PatchError(f"{where}: a patch section without a change (write the cell whole instead)")
    return blocks


def _block(run: list[tuple[str, str]], where: str) -> Block:
    old = tuple(text for mark, text in run if mark != ADD)
    new = tuple(text for mark, text in run if mark != REMOVE)
    if not any(mark != KEEP for mark, _ in run):
        raise PatchError(f"{where}: a block that changes nothing: {old[0]!r}")
    if not old:
        raise PatchError(f"{where}: a block that only adds lines needs a '# = ' line to say where: {new[0]!r}")
    return Block(old, new)


def _find(lines: list[str], old: tuple[str, ...], where: str) -> int:
    """The one index in `lines` where `old` starts."""
    n = len(old)
    starts = [i for i in range(len(lines) - n + 1) if tuple(lines[i : i + n]) == old]
    text = "\n".join(old)
    if not starts:
        raise PatchError(f"{where}: the reference answer has no lines\n{text}")
    if len(starts) > 1:
        raise PatchError(f"{where}: the reference answer has {len(starts)} places with the lines\n{text}")
    return starts[0]


def apply(reference: str, body: str, where: str) -> str:
    """The reference answer with the patch section's blocks applied."""
    lines = reference.splitlines()
    placed = sorted(((_find(lines, b.old, where), b) for b in parse_blocks(body, where)), key=lambda pair: pair[0])
    out: list[str] = []
    at = 0
    for start, block in placed:
        if start < at:
            raise PatchError(f"{where}: two blocks change the same lines: {block.old[0]!r}")
        out += [*lines[at:start], *block.new]
        at = start + len(block.old)
    return "\n".join([*out, *lines[at:]]).strip("\n") + "\n"
