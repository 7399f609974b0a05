"""Answer cells: find them by grade_id, read them from a notebook, write them into one."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

import nbformat

from autograder import paths
from autograder.material import answer_patches
from autograder.material.markup import strip_markers

_ANSWER_HEADER = re.compile(r"^# %% (answer|patch) (\S+)\s*$", re.MULTILINE)


def grade_id(cell) -> str | None:
    """The nbgrader grade_id of a cell, or None."""
    meta = cell.get("metadata", {}).get("nbgrader")
    return meta.get("grade_id") if isinstance(meta, dict) else None


def nbgrader_id(cell) -> str:
    """The grade_id of a cell nbgrader marks (answer, test, written answer): nbgrader requires one."""
    gid = grade_id(cell)
    if not isinstance(gid, str):
        raise ValueError(f"an nbgrader cell without a grade_id: {cell.get('source', '')[:60]!r}")
    return gid


def is_answer(cell) -> bool:
    """An nbgrader solution cell (where the learner writes code)."""
    meta = cell.get("metadata", {}).get("nbgrader")
    return isinstance(meta, dict) and bool(meta.get("solution")) and cell.get("cell_type") == "code"


def is_written(cell) -> bool:
    """An nbgrader manually graded answer: a markdown cell the learner writes in, scored by a person."""
    meta = cell.get("metadata", {}).get("nbgrader")
    solution_and_grade = isinstance(meta, dict) and bool(meta.get("solution")) and bool(meta.get("grade"))
    return solution_and_grade and cell.get("cell_type") == "markdown"


def written_ids(nb) -> list[str]:
    """grade_ids of the written (manually graded) answers, in order."""
    return [nbgrader_id(c) for c in nb.cells if is_written(c)]


def is_test(cell) -> bool:
    """An autograded test cell."""
    meta = cell.get("metadata", {}).get("nbgrader")
    return isinstance(meta, dict) and bool(meta.get("grade")) and not meta.get("solution")


def answer_ids(nb) -> list[str]:
    """grade_ids of the answer cells, in order."""
    return [nbgrader_id(c) for c in nb.cells if is_answer(c)]


def with_answers(nb, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of `nb` whose answer cells hold the given sources (others unchanged)."""
    unknown = set(answers) - set(answer_ids(nb))
    if unknown:
        raise KeyError(f"no answer cell with grade_id {sorted(unknown)}")
    out = nbformat.from_dict(nb)
    for cell in out.cells:
        if is_answer(cell) and nbgrader_id(cell) in answers:
            cell.source = answers[nbgrader_id(cell)]
    return out


def reference_answers(source_nb) -> dict[str, str]:
    """The instructor's answers (solution cells, markers removed) by grade_id."""
    return {nbgrader_id(c): strip_markers(c.source) for c in source_nb.cells if is_answer(c)}


def parse_answer_file(text: str, reference: Mapping[str, str] | None = None, where: str = "") -> dict[str, str]:
    """Answer sources from a file of '# %% answer <grade_id>' and '# %% patch <grade_id>' sections.

    A patch section is resolved against `reference` (grade_id -> reference answer): see answer_patches.
    """
    parts = _ANSWER_HEADER.split(text)
    out: dict[str, str] = {}
    for i in range(1, len(parts), 3):
        kind, cell, body = parts[i : i + 3]
        if cell in out:
            raise ValueError(f"{where}: two sections for cell {cell!r}")
        out[cell] = body.strip("\n") + "\n" if kind == "answer" else _patched(cell, body, reference, where)
    return out


def _patched(cell: str, body: str, reference: Mapping[str, str] | None, where: str) -> str:
    """A patch section's full source: the cell's reference answer with the change applied."""
    if reference is None:
        raise ValueError(f"{where}: a patch of cell {cell!r}, read without the reference answers")
    if cell not in reference:
        raise ValueError(f"{where}: a patch of cell {cell!r}, which has no reference answer")
    return answer_patches.apply(reference[cell], body, f"{where}, cell {cell}")


def load_answer_file(path: Path, reference: Mapping[str, str] | None = None) -> dict[str, str]:
    """Parse a catalogue or sample answer file (patch sections need the notebook's reference answers)."""
    answers = parse_answer_file(path.read_text(), reference, str(path))
    if not answers:
        raise ValueError(f"{path}: no '# %% answer <grade_id>' section")
    return answers


@functools.cache
def notebook_points(name: str) -> float:
    """A course notebook's whole points: its test cells' and its written answers' (as a graded row's max_score)."""
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    return sum(float(c.metadata.nbgrader.get("points", 0)) for c in nb.cells if is_test(c) or is_written(c))
