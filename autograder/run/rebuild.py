"""Rebuild, don't repair: the graded notebook is the source plus the learner's answer cells.

The source and release notebooks are the instructor's; the submitted one is read as any
JSON at all (intake validates it, but nothing here relies on that): a field of the wrong
type counts as missing, and the flags quote what a learner wrote only cut short.
"""

from __future__ import annotations

from collections import Counter

import nbformat

from autograder.material import answers, markup
from autograder.material import released as history

MAX_UNKNOWN_IDS = 5  # unknown cell ids named in the flags; the rest are counted


def _stub_like(source_cell) -> str:
    """The student stub of an answer cell (what release shows), used when the answer is missing."""
    if source_cell.cell_type == "markdown":  # a written answer (nbgrader's text stub)
        return markup.TEXT_STUB
    return markup.code_stub(source_cell.source)


def _show(value: object, limit: int = 60) -> str:
    """What a learner wrote, as a flag quotes it: repr, cut short."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: object) -> str:
    """A cell source as a string: a list of strings is joined; anything else is empty.

    Text that cannot be written as UTF-8 (unpaired surrogates) has those characters replaced.
    """
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        value = "".join(value)
    if not isinstance(value, str):
        return ""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


def _cells(nb) -> list[dict]:
    """The submitted notebook's cells that are objects (a malformed notebook has none)."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


def _meta(cell) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return dict(meta) if isinstance(meta, dict) else {}


def _gid(cell) -> str | None:
    """A submitted cell's grade_id, if it is a string."""
    gid = _meta(cell).get("grade_id")
    return gid if isinstance(gid, str) and gid else None


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except RecursionError:
        return False


def compare_cells(release_nb, submitted_nb) -> list[str]:
    """Flags for test/locked cells that were deleted, duplicated, retyped, edited or reordered."""
    flags = []
    released = {answers.grade_id(c): c for c in release_nb.cells if answers.grade_id(c)}
    earlier = history.earlier(release_nb)  # a copy of an earlier release was not edited by its learner
    cells = [(c, _gid(c)) for c in _cells(submitted_nb)]
    counts = Counter(gid for _, gid in cells if gid)
    seen_order, unknown = [], []
    for cell, gid in cells:
        if gid is None:
            continue
        if gid not in released:
            unknown.append(gid)
            continue
        seen_order.append(gid)
        ref = released[gid]
        kind = (
            "answer"
            if answers.is_answer(ref) or answers.is_written(ref)
            else "test"
            if answers.is_test(ref)
            else "locked"
        )
        cell_type = cell.get("cell_type")
        mine = _meta(cell)
        if (
            gid in earlier
            and history.fingerprint(cell_type, _text(cell.get("source")), mine, kind == "answer") in (earlier[gid])
        ):  # only where an earlier release differed: no hashing for every cell of every submission
            continue
        if cell_type != ref.cell_type:
            flags.append(f"{kind} cell {gid!r} retyped to {_show(cell_type, 30)}; source version used")
        elif kind != "answer" and _text(cell.get("source")) != ref.source:
            flags.append(f"{kind} cell {gid!r} edited; source version used")
        theirs = _meta(ref)
        mine.pop("checksum", None), theirs.pop("checksum", None)
        if not _same(mine, theirs):
            flags.append(f"nbgrader metadata of {gid!r} edited; source version used")
    unknown = list(dict.fromkeys(unknown))
    for gid in unknown[:MAX_UNKNOWN_IDS]:
        flags.append(f"unknown cell id {_show(gid)} (added or renamed); ignored")
    if len(unknown) > MAX_UNKNOWN_IDS:
        flags.append(f"{len(unknown) - MAX_UNKNOWN_IDS} more unknown cell ids (added or renamed); ignored")
    for gid, n in counts.items():
        if n > 1 and gid in released:
            flags.append(f"cell {gid!r} appears {n} times; first answer used")
    for gid in released:
        if gid not in counts:
            flags.append(f"cell {gid!r} deleted; source version used")
    expected_order = [g for g in released if g in set(seen_order)]
    if list(dict.fromkeys(seen_order)) != expected_order:
        flags.append("graded cells reordered; source order used")
    return list(dict.fromkeys(flags))  # a cell copied many times is flagged once


def rebuild(source_nb, release_nb, submitted_nb) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook to grade, and the flags describing what the learner changed outside answers.

    Never raises on a malformed `submitted_nb` (any JSON value): what cannot be read is missing.
    """
    flags = compare_cells(release_nb, submitted_nb)
    meta = submitted_nb.get("metadata") if isinstance(submitted_nb, dict) else None
    spec = meta.get("kernelspec") if isinstance(meta, dict) else None
    kernel = spec.get("name") if isinstance(spec, dict) else None
    if kernel != source_nb.metadata.get("kernelspec", {}).get("name"):
        flags.append(f"kernel spec changed to {_show(kernel, 40)}; the course's kernel used")
    wanted = {
        answers.nbgrader_id(c): c.cell_type for c in source_nb.cells if answers.is_answer(c) or answers.is_written(c)
    }
    given: dict[str, str] = {}
    cells = _cells(submitted_nb)
    for cell in cells:
        gid = _gid(cell)
        if gid in wanted and gid not in given and _meta(cell).get("solution") and cell.get("cell_type") == wanted[gid]:
            given[gid] = _text(cell.get("source"))
    extra = [c for c in cells if c.get("cell_type") == "code" and not _gid(c)]
    release_plain = [c for c in release_nb.cells if c.cell_type == "code" and not answers.grade_id(c)]
    if len(extra) > len(release_plain):
        flags.append(f"{len(extra) - len(release_plain)} added code cell(s) ignored: only answer cells are graded")
    out = nbformat.from_dict(source_nb)
    for node in out.cells:
        if answers.is_answer(node) or answers.is_written(node):
            node.source = given.get(answers.nbgrader_id(node), _stub_like(node))
        if node.cell_type == "code":
            node.outputs, node.execution_count = [], None
    out.metadata = nbformat.from_dict(source_nb.metadata)
    return out, flags
