"""Attacks on the grader: answer files that cheat, plus notebook tampering, as a learner would."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from autograder.material import answers

ATTACKS = Path(__file__).resolve().parent / "attacks"
NB01 = "01_scaled_dot_product_attention"


ZERO_ANSWERS = {
    "sdpa": "def scaled_dot_product_attention(q, k, v, mask=None):\n"
    "    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)\n"
    "    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)\n",
    "attention_numpy": "def attention_numpy(q, k, v):\n    return np.zeros((q.shape[0], v.shape[1]))\n",
}
"""Answers that earn nothing: every attack starts from these, so any point it gets is stolen."""


def attack_files() -> list[Path]:
    """Every attack in tests/attacks/."""
    return sorted(ATTACKS.glob("*.py"))


def header(path: Path, key: str) -> str | None:
    """The value of a '# key: value' line of an attack file."""
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip() or None
    return None


def _tests(nb):
    return [c for c in nb.cells if answers.is_test(c)]


def tamper(nb, how: str) -> nbformat.NotebookNode:
    """Apply a notebook-level attack to a student notebook."""
    nb = copy.deepcopy(nb)
    if how == "edit_tests":
        for cell in _tests(nb):
            cell.source = "print('ok')"
    elif how == "delete_tests":
        nb.cells = [c for c in nb.cells if not answers.is_test(c)]
    elif how == "points_metadata":
        for cell in _tests(nb):
            cell.metadata.nbgrader["points"] = 1000
            cell.metadata.nbgrader["solution"] = True
    elif how == "retype_tests":
        for cell in _tests(nb):
            cell.cell_type = "markdown"
            cell.pop("outputs", None), cell.pop("execution_count", None)
    elif how == "reorder_cells":
        tests = _tests(nb)
        nb.cells = tests + [c for c in nb.cells if c not in tests]
    elif how == "fake_written_answer":  # claim a question graded by hand, worth 100 points, and a test turned into one
        extra = nbformat.v4.new_markdown_cell("I deserve full marks.")
        extra.metadata["nbgrader"] = {
            "grade": True,
            "solution": True,
            "locked": False,
            "points": 100,
            "grade_id": "q_free_points",
            "schema_version": 3,
        }
        nb.cells.append(extra)
        first = _tests(nb)[0]
        first.cell_type, first.source = "markdown", "see my written answer"
        first.metadata.nbgrader["solution"] = True
        first.pop("outputs", None), first.pop("execution_count", None)
    elif how == "kernelspec":
        nb.metadata["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}
    elif how == "duplicate_cells":
        for cell in _tests(nb)[:2]:
            twin = copy.deepcopy(cell)
            twin.source = "pass"
            twin.pop("id", None)
            nb.cells.append(twin)
        answer = next(c for c in nb.cells if answers.is_answer(c))
        twin = copy.deepcopy(answer)
        twin.source = "def scaled_dot_product_attention(q, k, v, mask=None):\n    raise SystemExit\n"
        twin.pop("id", None)
        nb.cells.insert(nb.cells.index(answer), twin)
    else:
        raise ValueError(f"unknown tamper {how!r}")
    return nb
