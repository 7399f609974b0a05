"""Rebuild, don't repair: the graded notebook is the source plus the learner's answer cells."""

from __future__ import annotations

from collections import Counter

import nbformat

from autograder import answers
from autograder.course import CODE_STUB


def _stub_like(source_cell) -> str:
    """The student stub of an answer cell (what release shows), used when the answer is missing."""
    lines, inside = [], False
    for line in source_cell.source.splitlines():
        if line.strip() == "### BEGIN SOLUTION":
            indent = line[: len(line) - len(line.lstrip())]
            lines += [indent + stub for stub in CODE_STUB.splitlines()]
            inside = True
        elif line.strip() == "### END SOLUTION":
            inside = False
        elif not inside:
            lines.append(line)
    return "\n".join(lines)


def _meta(cell) -> dict:
    meta = cell.get("metadata", {}).get("nbgrader")
    return dict(meta) if isinstance(meta, dict) else {}


def compare_cells(release_nb, submitted_nb) -> list[str]:
    """Flags for test/locked cells that were deleted, duplicated, retyped, edited or reordered."""
    flags = []
    released = {answers.grade_id(c): c for c in release_nb.cells if answers.grade_id(c)}
    counts = Counter(answers.grade_id(c) for c in submitted_nb.cells if answers.grade_id(c))
    seen_order = []
    for cell in submitted_nb.cells:
        gid = answers.grade_id(cell)
        if gid is None:
            continue
        if gid not in released:
            flags.append(f"unknown cell id {gid!r} (added or renamed); ignored")
            continue
        seen_order.append(gid)
        ref = released[gid]
        kind = "answer" if answers.is_answer(ref) else "test" if answers.is_test(ref) else "locked"
        if cell.get("cell_type") != ref.cell_type:
            flags.append(f"{kind} cell {gid!r} retyped to {cell.get('cell_type')}; source version used")
        elif kind != "answer" and cell.get("source") != ref.source:
            flags.append(f"{kind} cell {gid!r} edited; source version used")
        mine, theirs = _meta(cell), _meta(ref)
        mine.pop("checksum", None), theirs.pop("checksum", None)
        if mine != theirs:
            flags.append(f"nbgrader metadata of {gid!r} edited; source version used")
    for gid, n in counts.items():
        if n > 1 and gid in released:
            flags.append(f"cell {gid!r} appears {n} times; first answer used")
    for gid in released:
        if gid not in counts:
            flags.append(f"cell {gid!r} deleted; source version used")
    expected_order = [g for g in released if g in set(seen_order)]
    if list(dict.fromkeys(seen_order)) != expected_order:
        flags.append("graded cells reordered; source order used")
    return flags


def rebuild(source_nb, release_nb, submitted_nb) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook to grade, and the flags describing what the learner changed outside answers."""
    flags = compare_cells(release_nb, submitted_nb)
    kernel = submitted_nb.get("metadata", {}).get("kernelspec", {}).get("name")
    if kernel != source_nb.metadata.get("kernelspec", {}).get("name"):
        flags.append(f"kernel spec changed to {kernel!r}; the course's kernel used")
    given: dict[str, str] = {}
    for cell in submitted_nb.cells:
        gid = answers.grade_id(cell)
        if answers.is_answer(cell) and gid not in given and gid in answers.answer_ids(source_nb):
            given[gid] = cell.get("source", "")
    extra = [c for c in submitted_nb.cells if c.get("cell_type") == "code" and not answers.grade_id(c)]
    release_plain = [c for c in release_nb.cells if c.cell_type == "code" and not answers.grade_id(c)]
    if len(extra) > len(release_plain):
        flags.append(f"{len(extra) - len(release_plain)} added code cell(s) ignored: only answer cells are graded")
    out = nbformat.from_dict(source_nb)
    for cell in out.cells:
        if answers.is_answer(cell):
            cell.source = given.get(answers.grade_id(cell), _stub_like(cell))
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    out.metadata = nbformat.from_dict(source_nb.metadata)
    return out, flags
