"""Colab: each student notebook runs alone in an empty folder; its setup cell fetches the helper."""

from __future__ import annotations

import re

import nbformat
import pytest
from conftest import NAMES
from nbclient import NotebookClient

from autograder import paths
from autograder.checks.harness import defined_names, helpers_of_tests
from autograder.material import answers, colab


@pytest.mark.parametrize("name", NAMES)
def test_setup_cell_fetches_from_the_configured_repository(name):
    nb = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    setup = [c for c in nb.cells if answers.grade_id(c) == "setup"]
    assert len(setup) == 1, "one setup cell, grade_id 'setup'"
    assert colab.raw_base() in setup[0].source
    assert "google.colab" in setup[0].source
    installs = [
        c for c in nb.cells if c.cell_type == "code" and re.search(r"^\s*[!%]\s*pip|pip install", c.source, re.M)
    ]
    assert installs == [], "packages are installed only by the Colab setup cell"


def test_readme_links_every_notebook_to_colab():
    text = (paths.ROOT / "README.md").read_text()
    assert colab.links_block(NAMES) in text, "run python -m autograder release to refresh README's links"


@pytest.mark.slow
def test_each_setup_cell_fetches_the_helper_into_an_empty_folder(tmp_path, monkeypatch):
    """Colab's path of every setup cell, in one kernel: each runs in a folder of its own, empty before."""
    monkeypatch.setenv("WORKBOOK_FORCE_FETCH", "1")  # take the Colab path of the setup cell
    monkeypatch.setenv("WORKBOOK_URL", paths.NOTEBOOKS.as_uri())  # fetch from a local copy
    monkeypatch.setenv("MPLBACKEND", "Agg")
    cells = []
    for name in NAMES:
        (tmp_path / name).mkdir()
        nb = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        (setup,) = [c for c in nb.cells if answers.grade_id(c) == "setup"]
        enter = f"import os\nos.chdir({str(tmp_path / name)!r})\nassert os.listdir('.') == []"
        cells += [nbformat.v4.new_code_cell(enter), nbformat.v4.new_code_cell(setup.source)]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernel})
    NotebookClient(nb, timeout=600, allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert _errors(nb) == []
    for name in NAMES:
        assert (tmp_path / name / "workbook.py").read_bytes() == (paths.NOTEBOOKS / "workbook.py").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_alone_with_the_helper_only(graded_samples, name):
    """Every cell of the learner's notebook runs without an error with nothing but workbook.py beside it.

    The reference sample's graded run proves it (no second run of every notebook): its kernel ran,
    sandboxed, in a folder holding only workbook.py (autograder.run.worker), in grading mode.
    Under grading the tests' own helpers (plain cells of definitions only the tests read) run
    in the grader, not in the kernel: a visible test that calls one raises a NameError for
    that helper there, and nothing else may fail.
    """
    results, out = graded_samples
    assert results[f"ada/{name}"].status == "graded"
    executed = nbformat.read(out / ".state" / "ada" / f"{name}.ipynb", as_version=4)
    assert sum(bool(c.get("outputs")) for c in executed.cells if c.cell_type == "code") > 1, "not executed"
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    helpers = set().union(*(defined_names(source.cells[i].source) for i in helpers_of_tests(source)))
    expected = [
        (i, ename, value)
        for i, ename, value in _errors(executed)
        if answers.is_test(executed.cells[i]) and ename == "NameError" and _undefined(value) in helpers
    ]
    assert _errors(executed) == expected


def _undefined(message: str) -> str:
    """The name a NameError's message names."""
    found = re.match(r"name '(\w+)' is not defined", message)
    return found.group(1) if found else ""


def _errors(nb) -> list:
    return [
        (i, o.ename, o.evalue)
        for i, c in enumerate(nb.cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
