"""Test support: build submissions from answer files, and try them in a plain kernel."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder import answers, paths

CATALOGUE = Path(__file__).resolve().parent / "catalogue"


def catalogue_entries(name: str) -> list[Path]:
    """The catalogue files of one notebook: wrong_*.py and right_*.py."""
    return sorted((CATALOGUE / name).glob("*.py"))


def entry_kind(path: Path) -> str:
    """'wrong' or 'right', from the file name."""
    kind = path.name.split("_", 1)[0]
    if kind not in ("wrong", "right"):
        raise ValueError(f"{path}: catalogue files are named wrong_*.py or right_*.py")
    return kind


def expected_message(path: Path) -> str | None:
    """The '# expect: ...' line of a catalogue file: text a failure message must contain."""
    for line in path.read_text().splitlines():
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    return None


# A line of an answer file that stands for the cell's reference answer (tests/probes: probe, then answer)
REFERENCE_ANSWER = "# __reference answer__"


def make_submission(
    name: str,
    answer_file: Path | list[Path] | None,
    base: str = "student",
    defaults: dict[str, str] | None = None,
) -> nbformat.NotebookNode:
    """The student notebook with the reference answers, overridden by those in answer_file (or files, in order).

    base="source" starts from the instructor source instead (hidden tests included),
    for trying an entry in a plain kernel with `tryout`. `defaults` replaces the
    reference answers as the starting point (e.g. wrong answers everywhere).
    """
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    reference = answers.reference_answers(source)
    filled = dict(reference if defaults is None else defaults)
    for path in [answer_file] if isinstance(answer_file, (str, Path)) else answer_file or []:
        for cell, code in answers.load_answer_file(Path(path)).items():
            filled[cell] = code.replace(REFERENCE_ANSWER, reference.get(cell, ""))
    start = source if base == "source" else nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return answers.with_answers(start, filled)


def catalogue_submissions(name: str) -> list[tuple[str, list[Path]]]:
    """The catalogue as (student id, entries) submissions: one per wrong entry, right entries packed.

    A wrong entry needs a submission of its own (its lost points must be its own). Right
    entries that answer different cells share one: full marks for the pack means each of
    them got full marks beside the others, and the batch grades 22 notebooks instead of 46.
    """
    entries = catalogue_entries(name)
    packs: list[tuple[set[str], list[Path]]] = []
    for path in (p for p in entries if entry_kind(p) == "right"):
        cells = set(answers.load_answer_file(path))
        pack = next((pk for pk in packs if not pk[0] & cells), None)
        if pack is None:
            packs.append((cells, [path]))
        else:
            pack[0].update(cells)
            pack[1].append(path)
    wrong = [(f"{name[:2]}-{p.stem}".replace("_", "-"), [p]) for p in entries if entry_kind(p) == "wrong"]
    return wrong + [(f"{name[:2]}-right-pack-{i + 1}", files) for i, (_, files) in enumerate(packs)]


def tryout(name: str, answer_file: Path | None) -> dict[str, str]:
    """Run the source notebook (hidden tests included) with these answers; test -> 'ok' or error."""
    nb = make_submission(name, answer_file, base="source")
    os.environ["WORKBOOK_GRADING"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"  # as the grader runs it; small ops crawl on a busy machine otherwise
    NotebookClient(nb, timeout=300, allow_errors=True, resources={"metadata": {"path": str(paths.SOLUTIONS)}}).execute()
    verdicts = {}
    for cell in nb.cells:
        if answers.is_test(cell):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            verdicts[answers.grade_id(cell)] = f"{errors[0].ename}: {errors[0].evalue}" if errors else "ok"
    return verdicts


if __name__ == "__main__":  # python tests/support.py NN_name [answer_file ...]
    nb_name = sys.argv[1]
    for arg in sys.argv[2:] or [None]:
        print(f"== {arg or 'reference'}")
        for test, verdict in tryout(nb_name, Path(arg) if arg else None).items():
            print(f"  {test:<32} {verdict[:200]}")
