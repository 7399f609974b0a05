"""Regenerate data/submissions/ (sample submissions) from data/sample_answers/ and notebooks/.

ada gets the reference answers of every notebook; the others get the released student
notebook with the answers of their answer file (unlisted answer cells stay stubs).
Deterministic: run it after `python -m autograder release`; a test checks it is current.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import answers, paths  # noqa: E402

SAMPLES = ROOT / "data" / "sample_answers"


def build(out: Path) -> list[Path]:
    """Write every sample submission under out/<student>/<notebook>.ipynb."""
    written = []
    for student in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        for name in paths.notebook_names(paths.NOTEBOOKS):
            released = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
            answer_file = student / f"{name}.py"
            if student.name == "ada":
                filled = answers.reference_answers(nbformat.read(paths.source_notebook(name), as_version=4))
            elif answer_file.exists():
                filled = answers.load_answer_file(answer_file)
            elif student.name == "ben" and name.startswith("01_"):
                filled = {}
            else:
                continue
            target = out / student.name / f"{name}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(answers.with_answers(released, filled), target)
            written.append(target)
    return written


if __name__ == "__main__":
    destination = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "submissions"
    shutil.rmtree(destination, ignore_errors=True)
    for path in build(destination):
        print(path.relative_to(destination))
