"""The written answers' rubrics: what a person grading an answer reads beside it (never the learner).

Each written answer's source cell holds, between nbgrader's solution markers, a
`**Model answer.**` and a `**Rubric (N points).**` paragraph; release strips both from the
student version. Here they are read back, for `mark`'s output and for the notebooks
formgrader shows a grader (autograder.gradebook.grading_view).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import nbformat

from autograder import paths
from autograder.material import answers
from autograder.material.markup import BEGIN_SOLUTION, END_SOLUTION

RUBRIC = "**Rubric"
MODEL = "**Model answer.**"
NOTE_TAG = "grader-only-rubric"  # the tag of a rubric cell put into a grader's copy of a notebook


@dataclass(frozen=True, kw_only=True)
class Rubric:
    """One written answer's grading guide, from its source cell."""

    grade_id: str
    points: float
    model_answer: str
    rubric: str


def _solution(source: str) -> str:
    """The text between the solution markers (all of it when there are none)."""
    start, end = source.find(BEGIN_SOLUTION), source.find(END_SOLUTION)
    if start < 0:
        return source
    return source[start + len(BEGIN_SOLUTION) : end if end > start else len(source)]


def parse(grade_id: str, points: float, source: str) -> Rubric:
    """A written cell's rubric and model answer (a cell without a rubric paragraph: all its solution text)."""
    text = _solution(source).strip()
    cut = text.find(RUBRIC)
    model, rubric = (text[:cut], text[cut:]) if cut >= 0 else ("", text)
    model = model.strip().removeprefix(MODEL).strip()
    return Rubric(grade_id=grade_id, points=points, model_answer=model, rubric=rubric.strip())


@functools.cache
def of_notebook(name: str) -> dict[str, Rubric]:
    """Every written answer's rubric in a course notebook, by grade_id, in the notebook's order."""
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    found = {}
    for cell in nb.cells:
        if answers.is_written(cell):
            gid = answers.nbgrader_id(cell)
            found[gid] = parse(gid, float(cell.metadata.nbgrader.get("points", 0)), cell.source)
    return found


def note_cell(rubric: Rubric) -> nbformat.NotebookNode:
    """A markdown cell that shows a grader the rubric (and model answer) of the written answer above it."""
    lines = [
        f"> **For the grader only** (never in the learner's feedback): `{rubric.grade_id}`, {rubric.points:g} points."
    ]
    for part in (rubric.rubric, f"{MODEL} {rubric.model_answer}" if rubric.model_answer else ""):
        if part:
            lines += [">", *(f"> {line}" for line in part.splitlines())]
    cell = nbformat.v4.new_markdown_cell("\n".join(lines))
    cell.metadata["tags"] = [NOTE_TAG]
    return cell


def with_notes(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """A copy of a learner's notebook with each written answer followed by its rubric cell (for graders)."""
    found = of_notebook(name)
    out = nbformat.from_dict(nb)
    cells = []
    for cell in out.cells:
        cells.append(cell)
        gid = answers.grade_id(cell) if answers.is_written(cell) else None
        if gid in found:
            cells.append(note_cell(found[gid]))
    out.cells = cells
    return out


def shown(rubric: Rubric, width: int = 100) -> str:
    """A rubric as `mark` prints it: indented, the model answer after it."""
    import textwrap

    parts = [rubric.rubric] + ([f"{MODEL} {rubric.model_answer}"] if rubric.model_answer else [])
    return "\n".join(
        textwrap.fill(" ".join(p.split()), width, initial_indent="    ", subsequent_indent="    ") for p in parts
    )
