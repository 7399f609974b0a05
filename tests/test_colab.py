"""Colab: each student notebook runs alone in an empty folder; its setup cell fetches the helper."""

from __future__ import annotations

import re

import nbformat
import pytest
from conftest import NAMES
from nbclient import NotebookClient

from autograder import answers, colab, paths


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
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_alone_with_the_colab_fetch(name, tmp_path, monkeypatch):
    nb = nbformat.read(paths.DATA / "submissions" / "ada" / f"{name}.ipynb", as_version=4)
    monkeypatch.setenv("WORKBOOK_FORCE_FETCH", "1")  # take the Colab path of the setup cell
    monkeypatch.setenv("WORKBOOK_URL", paths.NOTEBOOKS.as_uri())  # fetch from a local copy
    monkeypatch.setenv("WORKBOOK_GRADING", "1")  # short training: this checks standalone-ness
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert list(tmp_path.iterdir()) == []
    NotebookClient(nb, timeout=600, allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [
        (i, o.ename, o.evalue)
        for i, c in enumerate(nb.cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []
    assert (tmp_path / "workbook.py").read_bytes() == (paths.NOTEBOOKS / "workbook.py").read_bytes()
