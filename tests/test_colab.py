"""Colab: each student notebook runs alone in an empty folder; its setup cell fetches the helper of its own
version (the tag), says in one line when the helper's version, torch or Python does not fit; one version everywhere."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import tomllib

import nbformat
import pytest
from conftest import NAMES
from nbclient import NotebookClient

from autograder import __version__, paths
from autograder import workbook as helper
from autograder.checks.harness import defined_names, helpers_of_tests
from autograder.commands import cli
from autograder.material import answers, colab


@pytest.mark.parametrize("name", NAMES)
def test_setup_cell_fetches_from_the_configured_repository(name):
    nb = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    setup = [c for c in nb.cells if answers.grade_id(c) == "setup"]
    assert len(setup) == 1, "one setup cell, grade_id 'setup'"
    assert colab.raw_base() in setup[0].source
    assert "google.colab" in setup[0].source
    version = colab.version()
    assert f'WORKBOOK_VERSION = "{version}"' in setup[0].source
    assert colab.raw_base().endswith(f"/v{version}/notebooks") and "/main/" not in setup[0].source  # pinned, never main
    installs = [
        c for c in nb.cells if c.cell_type == "code" and re.search(r"^\s*[!%]\s*pip|pip install", c.source, re.M)
    ]
    assert installs == [], "packages are installed only by the Colab setup cell"


def test_readme_and_the_learner_guide_link_every_notebook_to_colab():
    for page in colab.LINK_PAGES:
        text = (paths.ROOT / page).read_text()
        assert colab.links_block(NAMES) in text, f"run python -m autograder release to refresh {page}'s links"


def test_one_version_everywhere():
    """pyproject.toml's version is the package's, the helper's, --version's and has a CHANGELOG entry."""
    version = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert colab.version() == version == __version__ == helper.__version__
    assert f'__version__ = "{version}"' in (paths.NOTEBOOKS / "workbook.py").read_text()  # the released copy
    assert f"## [{version}]" in (paths.ROOT / "CHANGELOG.md").read_text()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--version"]) == 0
    assert out.getvalue() == f"attention-workbook {version}\n"


def test_pinning_moves_a_setup_cell_from_main_to_this_versions_tag():
    old = 'WORKBOOK_VERSION = "0.0.1"\nURL = "https://raw.githubusercontent.com/o/r/main/notebooks"\n'
    pinned = colab.pin_setup(old)
    assert f'WORKBOOK_VERSION = "{colab.version()}"' in pinned and f'"{colab.raw_base()}"' in pinned
    assert colab.pin_setup(pinned) == pinned
    with pytest.raises(ValueError, match="WORKBOOK_VERSION"):
        colab.pin_setup('URL = "https://raw.githubusercontent.com/o/r/main/notebooks"\n')


def test_the_floors_are_the_declared_ones_and_each_problem_is_one_line_with_its_fix():
    learner = (paths.ROOT / "requirements-learner.txt").read_text()
    assert f"torch>={'.'.join(map(str, helper.TORCH_FLOOR))}\n" in learner
    requires = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == f">={'.'.join(map(str, helper.PYTHON_FLOOR))}"
    assert helper.environment_problems("2.13.0+cpu", (3, 11)) == []
    torch_old, python_old = helper.environment_problems("2.5.1+cu121", (3, 10))
    assert torch_old.startswith("torch 2.5.1+cu121 is older than this workbook needs (2.13)")
    assert 'pip install -U "torch>=2.13"' in torch_old
    assert python_old.startswith("Python 3.10 is older than this workbook needs (3.11)")
    assert "\n" not in torch_old + python_old


@pytest.mark.slow
def test_the_setup_cell_names_a_helper_of_another_version_in_one_line(tmp_path):
    """A workbook.py of another release beside the notebook: the setup cell prints one line saying how to fix it."""
    nb = nbformat.read(paths.NOTEBOOKS / f"{NAMES[0]}.ipynb", as_version=4)
    (setup,) = [c for c in nb.cells if answers.grade_id(c) == "setup"]
    for name in paths.LEARNER_HELPERS:
        (tmp_path / name).write_bytes((paths.NOTEBOOKS / name).read_bytes())
    stale = (tmp_path / "workbook.py").read_text().replace(f'__version__ = "{__version__}"', '__version__ = "0.0.9"')
    (tmp_path / "workbook.py").write_text(stale)
    env = {"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", setup.source], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stdout.splitlines() if not line.startswith("torch ")]
    assert lines == [
        f"workbook.py is version 0.0.9 but this notebook is {__version__}: delete workbook.py and wb_refusal.py, "
        f"restart the kernel and run this cell again (in Colab it fetches version {__version__})"
    ]


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
    printed = [o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "stream"]
    assert [line for line in "".join(printed).splitlines() if not line.startswith("torch ")] == []  # no complaint
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
