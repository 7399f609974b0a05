"""release: student notebooks are current, clean, and carry no solution or hidden test."""

from __future__ import annotations

import zipfile

import nbformat
import pytest
from conftest import NAMES
from leaks import leaked, secret_lines

from autograder import paths
from autograder.material import answers, colab


@pytest.mark.parametrize("name", NAMES)
def test_notebooks_folder_equals_a_fresh_release(released, name):
    fresh = (released / "notebooks" / f"{name}.ipynb").read_text()
    committed = paths.NOTEBOOKS / f"{name}.ipynb"
    assert committed.exists(), f"notebooks/{name}.ipynb missing: run python -m autograder release"
    assert committed.read_text() == fresh, f"notebooks/{name}.ipynb drifted from solutions/: run release"


@pytest.mark.parametrize("helper", sorted(paths.LEARNER_HELPERS))
def test_the_learners_helper_modules_are_the_graders(helper):
    """notebooks/workbook.py and wb_refusal.py (the bundle's, what Colab fetches) are copies release writes: never stale."""
    committed = paths.NOTEBOOKS / helper
    source = paths.LEARNER_HELPERS[helper]
    assert committed.read_bytes() == source.read_bytes(), f"notebooks/{helper} drifted: run release"


def test_no_stray_student_notebooks():
    assert paths.notebook_names(paths.NOTEBOOKS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_student_notebook_is_stripped(released, name):
    text = (released / "notebooks" / f"{name}.ipynb").read_text()
    nb = nbformat.reads(text, as_version=4)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    stubs = [c for c in nb.cells if answers.is_answer(c)]
    assert stubs and all("raise NotImplementedError()" in c.source for c in stubs)
    assert leaked(text, name) == []


@pytest.mark.parametrize("name", NAMES)
def test_secret_lines_are_found(name):
    """The leak detector itself can fail: each notebook has solution lines to look for."""
    assert secret_lines(name, "solution"), "no distinctive solution line: the leak test would be vacuous"


def test_bundle_holds_only_student_material(released):
    with zipfile.ZipFile(released / "bundle.zip") as zf:
        names = sorted(zf.namelist())
        texts = {n: zf.read(n).decode() for n in names}
    kit = ["workbook.py", "wb_refusal.py", "README.md", "requirements.txt", "self_check.py"]
    kit += [f"autograder/{p}" for p in ("__init__.py", "checks/__init__.py", "checks/perimeter.py",
                                        "checks/pysource.py", "checks/attrnames.py")]  # the answer scan  # fmt: skip
    kit.append("VERSION")  # the release these notebooks are
    assert names == sorted([f"attention-workbook/{n}.ipynb" for n in NAMES] + [f"attention-workbook/{k}" for k in kit])
    assert texts["attention-workbook/VERSION"] == f"{colab.version()}\n"
    helper = "".join(texts[f"attention-workbook/{k}"] for k in kit)
    for name in NAMES:
        assert leaked(texts[f"attention-workbook/{name}.ipynb"] + helper, name) == []
    assert all("BEGIN HIDDEN TESTS" not in t and "BEGIN SOLUTION" not in t for t in texts.values())
