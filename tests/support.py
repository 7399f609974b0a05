"""Test support: build submissions from answer files, and try them in a plain kernel."""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import nbformat
from dependencies import answer_dependencies
from nbclient import NotebookClient

from autograder import paths
from autograder.material import answers

CATALOGUE = Path(__file__).resolve().parent / "catalogue"


def catalogue_entries(name: str) -> list[Path]:
    """The catalogue files of one notebook: wrong_*.py and right_*.py."""
    return sorted((CATALOGUE / name).glob("*.py"))


def load_entry(path: Path) -> dict[str, str]:
    """A catalogue entry's answer sources, its patch sections resolved against its notebook's reference answers."""
    source = paths.source_notebook(path.parent.name)
    return dict(_load_entry_version(path, path.stat().st_mtime_ns, source.stat().st_mtime_ns))


@functools.lru_cache(maxsize=1024)
def _load_entry_version(path: Path, version: int, source_version: int) -> dict[str, str]:
    """Read once per version of the entry and of its notebook (packing the catalogue reads each thousands of times)."""
    return answers.load_answer_file(path, reference_of(path.parent.name))


def reference_of(name: str) -> dict[str, str]:
    """The reference answers of a notebook, by grade_id."""
    return answers.reference_answers(_read(paths.source_notebook(name)))


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


def expected_per_test(path: Path) -> dict[str, str]:
    """The '# expect in <test>: ...' lines of a catalogue file: text that this test's own failure message must
    contain (a mistake several tests catch is named by each of them, not only by one)."""
    found = {}
    for line in path.read_text().splitlines():
        m = re.match(r"# expect in (\w+): (.+)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


# A line of an answer file that stands for the cell's reference answer (tests/probes: probe, then answer)
REFERENCE_ANSWER = "# __reference answer__"

PROBE_RULE_TEST = "test_dtype_grad"
"""01's test holding its forbidden-built-in rule, which covers every answer cell: a probe of the sandbox
(it imports os and subprocess, which no answer may use) loses that test's points, and only those."""


def graded_in_full_but_the_rule(result) -> bool:
    """A probe's grade: every test's points but the rule's, and the rule's finding flagged."""
    lost = {t.name for t in result.tests if not t.manual and t.score < t.max_score}  # written: pending
    flagged = any(f.startswith("forbidden:") for f in result.flags)
    return result.max_score > 0 and lost == {PROBE_RULE_TEST} and flagged


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
    source = _read(paths.source_notebook(name))
    reference = answers.reference_answers(source)
    filled = dict(reference if defaults is None else defaults)
    for path in [answer_file] if isinstance(answer_file, (str, Path)) else answer_file or []:
        for cell, code in answers.load_answer_file(Path(path), reference).items():
            filled[cell] = code.replace(REFERENCE_ANSWER, reference.get(cell, ""))
    start = source if base == "source" else _read(paths.NOTEBOOKS / f"{name}.ipynb")
    return answers.with_answers(start, filled)  # a copy: the notebooks read stay as they are


def inner_pytest(folder: Path, *args: str) -> list[str]:
    """pytest run inside a test on files in `folder`: the suite's tests/conftest.py, none of the repository's addopts.

    `autograder` loads first: its guard keeps rfc3987_syntax out (nbval's entry point imports nbformat).
    Run it with inner_env()."""
    plugins = ["-p", "autograder", "-p", "conftest", "-p", "no:cacheprovider"]
    return [sys.executable, "-m", "pytest", *plugins, "-q", "-o", "addopts=", "--rootdir", str(folder), *args]


def inner_env(**changes: str) -> dict[str, str]:
    """The environment of an inner_pytest run: this one, with tests/ and the repository importable."""
    return {**os.environ, "PYTHONPATH": f"{paths.ROOT / 'tests'}{os.pathsep}{paths.ROOT}", **changes}


def _read(path: Path) -> nbformat.NotebookNode:
    """A notebook, read once per version of the file (packing the catalogue reads each many times)."""
    return _read_version(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _read_version(path: Path, version: int) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def catalogue_submissions(name: str) -> list[tuple[str, list[Path]]]:
    """The catalogue as (student id, entries) submissions, packed as far as the tests tell entries apart.

    Right entries that answer different cells share one: full marks for the pack means each
    of them got full marks beside the others. Wrong entries share one when no test may depend
    on the cells of two of them (tests/dependencies.py), so that every point a test loses is
    the doing of the one entry it depends on (entry_tests); the catalogue's test also checks
    that the tests that depend on none of them pass. 180 wrong entries make 110 submissions.
    """
    entries = catalogue_entries(name)
    right = _pack([p for p in entries if entry_kind(p) == "right"], lambda pack: True)
    wrong = _pack([p for p in entries if entry_kind(p) == "wrong"], lambda pack: _apart(name, pack))
    return [(f"{name[:2]}-wrong-pack-{i + 1}", files) for i, files in enumerate(wrong)] + [
        (f"{name[:2]}-right-pack-{i + 1}", files) for i, files in enumerate(right)
    ]


def _pack(entries: list[Path], fits) -> list[list[Path]]:
    """First fit: each entry joins the first pack whose cells it does not answer and that still `fits`."""
    packs: list[list[Path]] = []
    for path in entries:
        cells = set(load_entry(path))
        pack = next((pk for pk in packs if not cells & _cells(pk) and fits([*pk, path])), None)
        if pack is None:
            packs.append([path])
        else:
            pack.append(path)
    return packs


def _cells(files: list[Path]) -> set[str]:
    return {cell for path in files for cell in load_entry(path)}


def entry_tests(name: str, files: list[Path]) -> dict[Path, set[str]]:
    """Per entry of a submission, the tests that may depend on a cell it answers (read from the submitted code)."""
    return dict(_entry_tests(name, tuple(files)))


@functools.lru_cache(maxsize=1024)
def _entry_tests(name: str, files: tuple[Path, ...]) -> tuple[tuple[Path, set[str]], ...]:
    depends = answer_dependencies(make_submission(name, list(files), base="source"))
    return tuple((path, {t for t, cells in depends.items() if cells & set(load_entry(path))}) for path in files)


def _apart(name: str, files: list[Path]) -> bool:
    """No test may depend on the cells of two of these entries."""
    tests = entry_tests(name, files)
    return all(len([p for p in files if t in tests[p]]) <= 1 for t in set().union(*tests.values()))


def tryout(name: str, answer_file: Path | None) -> dict[str, str]:
    """Run the source notebook (hidden tests included) with these answers; test -> 'ok' or error."""
    nb = make_submission(name, answer_file, base="source")
    # the kernel inherits these (one thread as the grader runs it; small ops crawl on a busy machine otherwise);
    # put back afterwards, so that nothing run later in this process sees them
    before = {key: os.environ.get(key) for key in ("WORKBOOK_GRADING", "OMP_NUM_THREADS")}
    os.environ.update(WORKBOOK_GRADING="1", OMP_NUM_THREADS="1")
    try:
        client = NotebookClient(
            nb, timeout=300, allow_errors=True, resources={"metadata": {"path": str(paths.SOLUTIONS)}}
        )
        client.execute()
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
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
