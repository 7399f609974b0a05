"""Gradescope: the zip's layout, and run_autograder against a folder laid out like /autograder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest
from conftest import ROOT
from support import make_submission

from autograder.gradescope import build_zip

NB01 = "01_scaled_dot_product_attention"
STATUSES = {"passed", "failed"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def validate_results(data: dict) -> None:
    """The parts of Gradescope's results.json specification this autograder uses."""
    assert isinstance(data["score"], (int, float))
    assert isinstance(data["tests"], list) and data["tests"]
    for test in data["tests"]:
        assert set(test) <= {
            "score",
            "max_score",
            "status",
            "name",
            "number",
            "output",
            "tags",
            "visibility",
            "extra_data",
            "output_format",
            "name_format",
        }
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in STATUSES and test["visibility"] in VISIBILITIES
    assert data.get("visibility", "visible") in VISIBILITIES
    assert abs(data["score"] - sum(t["score"] for t in data["tests"])) < 1e-9


def test_zip_layout(tmp_path):
    path = build_zip(tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "source/requirements.txt"} <= names
        assert f"source/solutions/{NB01}.ipynb" in names and "source/autograder/grade.py" in names
        assert (zf.getinfo("run_autograder").external_attr >> 16) & 0o111


@pytest.mark.slow
def test_run_autograder_writes_valid_results(tmp_path):
    with zipfile.ZipFile(build_zip(tmp_path / "autograder.zip")) as zf:
        zf.extractall(tmp_path / "autograder")
    root = tmp_path / "autograder"
    os.chmod(root / "run_autograder", 0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    nb = make_submission(NB01, ROOT / "tests" / "catalogue" / NB01 / "wrong_no_scale.py")
    nbformat.write(nb, root / "submission" / f"{NB01}.ipynb")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    proc = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text())
    validate_results(data)
    assert 0 < data["score"] < sum(t["max_score"] for t in data["tests"])
    hidden = [t for t in data["tests"] if t["visibility"] == "after_published"]
    assert hidden, "hidden tests must be published after grades are"
    assert any("√d_k" in t["output"] for t in data["tests"])
    shutil.rmtree(root / "work", ignore_errors=True)
