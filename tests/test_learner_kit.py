"""The learner's kit: the bundle's own README, requirements and self-check, run from the bundle alone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from support import make_submission

NB01 = "01_scaled_dot_product_attention"
LEARNER = {"torch", "numpy", "matplotlib", "jupyterlab", "ipykernel", "tqdm", "ipywidgets"}  # ipywidgets: tqdm's bar


def _requirements(name: str) -> dict[str, str]:
    """package -> its line, following -r includes."""
    found = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            found.update(_requirements(line[3:].strip()))
        elif line:
            found[re.split(r"[<>=!~ ]", line)[0].lower()] = line
    return found


def test_the_requirements_split_by_audience_and_together_are_requirements_txt():
    learner, instructor, dev = (_requirements(f"requirements-{n}.txt") for n in ("learner", "instructor", "dev"))
    assert set(learner) == LEARNER, sorted(learner)
    assert not {"nbgrader", "pytest", "ruff", "playwright", "hypothesis"} & set(learner)
    assert set(learner) < set(instructor) < set(dev) and "nbgrader" in instructor and "pytest" not in instructor
    assert dev == _requirements("requirements.txt")  # README's two commands still install everything, same floors


def test_readmes_tell_cpu_only_linux_users_about_pytorchs_cpu_wheels():
    kit = (ROOT / "autograder" / "kit" / "README.md").read_text()
    for text in (kit, (ROOT / "README.md").read_text()):
        assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert "self_check.py" in kit and "Colab" in kit and "Hand in" in kit


def _bundle(released, tmp_path: Path) -> Path:
    with zipfile.ZipFile(released / "bundle.zip") as zf:
        zf.extractall(tmp_path)
    return tmp_path / "attention-workbook"


def _self_check(folder: Path, nb) -> subprocess.CompletedProcess:
    nbformat.write(nb, folder / f"{NB01}.ipynb")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WORKBOOK_GRADING")}
    env["OMP_NUM_THREADS"] = "1"
    bindir = str(Path(sys.executable).parent)  # jupyter's kernel: the same environment's python3
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    command = [sys.executable, "-I", "self_check.py", f"{NB01}.ipynb"]  # -I: nothing of the repository importable
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_self_check_runs_from_the_bundle_alone_in_grading_mode_and_fails_a_notebook_that_stops(released, tmp_path):
    folder = _bundle(released, tmp_path)
    good = make_submission(NB01, None)
    good.cells.append(nbformat.v4.new_code_cell("import workbook\nassert workbook.GRADING, 'not in grading mode'"))
    run = _self_check(folder, good)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "runs top to bottom" in run.stdout and "✓ passed" in run.stdout and "✗" not in run.stdout

    broken = make_submission(NB01, None)  # every visible test passes; a later cell fails
    broken.cells.append(nbformat.v4.new_code_cell("plot_attention_everything()"))
    run = _self_check(folder, broken)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "does NOT run top to bottom" in run.stdout and "NameError" in run.stdout

    run = _self_check(folder, nbformat.read(released / "notebooks" / f"{NB01}.ipynb", as_version=4))  # as handed out
    assert run.returncode == 1 and "NotImplementedError" in run.stdout, run.stdout
