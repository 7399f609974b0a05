"""Regenerate data/submissions/ (sample submissions) from data/sample_answers/ and notebooks/.

ada gets the reference answers of every notebook; the others get the released student
notebook with the answers of their answer file (unlisted answer cells stay stubs).
Deterministic: run it after `python -m autograder release`; a test checks it is current.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402  # before nbformat: its guard keeps rfc3987_syntax out (1.4 s)
from autograder.material import answers  # noqa: E402

# isort: split
import nbformat  # noqa: E402

SAMPLES = ROOT / "data" / "sample_answers"


STUDENTS = {
    "ada": "reference answers, every notebook",
    "ben": "notebook 01 untouched",
    "cy": "notebook 01 partly done",
    "dee": "notebook 01 with a classic mistake",
}


def answers_for(student: str, name: str) -> dict[str, str] | None:
    """The answers of a sample student for a notebook, or None if they did not submit it."""
    if student == "ada":
        return answers.reference_answers(nbformat.read(paths.source_notebook(name), as_version=4))
    if student == "ben":
        return {} if name.startswith("01_") else None
    answer_file = SAMPLES / student / f"{name}.py"
    return answers.load_answer_file(answer_file) if answer_file.exists() else None


def build(out: Path) -> list[Path]:
    """Write every sample submission under out/<student>/<notebook>.ipynb."""
    written = []
    for student in STUDENTS:
        for name in paths.notebook_names(paths.NOTEBOOKS):
            filled = answers_for(student, name)
            if filled is None:
                continue
            released = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
            target = out / student / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(answers.with_answers(released, filled), target)
            written.append(target)
    return written


if __name__ == "__main__":
    destination = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "submissions"
    shutil.rmtree(destination, ignore_errors=True)
    for path in build(destination):
        print(path.relative_to(destination))
