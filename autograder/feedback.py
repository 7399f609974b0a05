"""Feedback: nbgrader generate_feedback on notebooks stripped of every hidden-test source."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import nbformat

from autograder import answers
from autograder.course import Course
from autograder.results import NotebookResult

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[ \t]*\n?", re.S | re.M)


def strip_hidden(source: str) -> str:
    """A test cell's source with each hidden block replaced by a one-line note."""
    return _HIDDEN.sub("# (hidden tests run here when your notebook is graded)\n", source)


def _verdict_output(test) -> nbformat.NotebookNode:
    mark = "✓ passed" if test.status == "passed" else "✗ failed"
    text = f"{mark} ({test.score:g}/{test.max_score:g} points)"
    if test.message:
        text += f"\n{test.message}"
    return nbformat.v4.new_output("stream", name="stdout", text=text + "\n")


def summary_cell(result: NotebookResult) -> nbformat.NotebookNode:
    """A markdown table: every test with its points, pass/fail and message; then flags."""
    rows = ["| test | points | result | message |", "|---|---|---|---|"]
    for t in result.tests:
        mark = "✓" if t.status == "passed" else "✗"
        message = html.escape(t.message.replace("\n", " ").replace("|", "\\|"))[:400]
        rows.append(
            f"| `{t.name}`{' (hidden)' if t.hidden else ''} | {t.score:g}/{t.max_score:g} | {mark} | {message} |"
        )
    text = f"## Grade: {result.score:g} / {result.max_score:g}\n\n" + "\n".join(rows)
    if result.flags or result.errors:
        text += "\n\n**Notes from the grader**\n\n" + "\n".join(
            f"- {html.escape(x)}" for x in result.errors + result.flags
        )
    return nbformat.v4.new_markdown_cell(text)


def sanitize(nb, result: NotebookResult) -> nbformat.NotebookNode:
    """Hide hidden tests (source and output), put each test's verdict in its output."""
    by_name = {t.name: t for t in result.tests}
    for cell in nb.cells:
        if answers.is_test(cell):
            cell.source = strip_hidden(cell.source)
            test = by_name.get(answers.grade_id(cell))
            cell.outputs = [_verdict_output(test)] if test else []
        elif cell.cell_type == "code":
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename')}: {out.get('evalue')}"]
    nb.cells.insert(0, summary_cell(result))
    return nb


def generate(course: Course, session, result: NotebookResult, out_dir: Path) -> Path:
    """Write out_dir/<student>/<notebook>.html for one graded result (nbgrader generate_feedback)."""
    name, student = result.notebook, result.student_id
    path = course.root / "autograded" / student / name / f"{name}.ipynb"
    nbformat.write(sanitize(nbformat.read(path, as_version=4), result), path)
    session.generate_feedback(name, student)
    dest = out_dir / student / f"{name}.html"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(course.root / "feedback" / student / name / f"{name}.html", dest)
    return dest
