"""Gradescope: the zip's layout, and run_autograder against a folder laid out like /autograder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from support import PROBE_RULE_TEST, make_submission

from autograder import answers, paths, sandbox
from autograder.gradescope import build_zip
from autograder.launchers import KernelJob
from autograder.limits import Limits

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


def _autograder_root(tmp_path, nb) -> Path:
    """A folder laid out like Gradescope's /autograder, holding one submitted notebook."""
    with zipfile.ZipFile(build_zip(tmp_path / "autograder.zip")) as zf:
        zf.extractall(tmp_path / "autograder")
    root = tmp_path / "autograder"
    os.chmod(root / "run_autograder", 0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    nbformat.write(nb, root / "submission" / f"{NB01}.ipynb")
    return root


def _run_autograder(root: Path, **env) -> dict:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable, **env}
    proc = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text())
    validate_results(data)
    return data


@pytest.mark.slow
def test_run_autograder_writes_valid_results(tmp_path):
    nb = make_submission(NB01, ROOT / "tests" / "catalogue" / NB01 / "wrong_no_scale.py")
    root = _autograder_root(tmp_path, nb)
    data = _run_autograder(root)
    assert 0 < data["score"] < sum(t["max_score"] for t in data["tests"])
    # only a test with no visible check is published after grades are (issue 17); every test of
    # notebook 01 now has visible checks, so each is shown at once, hidden parts included in its text
    held_back = [t["name"] for t in data["tests"] if t["visibility"] == "after_published"]
    assert held_back == [], f"tests with visible checks held back until publishing: {held_back}"
    assert any("√d_k" in t["output"] for t in data["tests"])
    shutil.rmtree(root / "work", ignore_errors=True)


PROBE = """import os
print("PROBE uid", os.getuid())
for _path in {paths!r}:
    try:
        os.listdir(_path) if os.path.isdir(_path) else open(_path).read(1)
        print("PROBE READ", _path)
    except OSError:
        print("PROBE denied", _path)
try:
    open({results!r}, "w").write("{{}}")
    print("PROBE WROTE results.json")
except OSError:
    print("PROBE denied results.json")
"""


def _uid_cannot_run_python() -> str | None:
    """Why the reduced sandbox cannot be tried here, or None."""
    problem = sandbox.user_only_problem()
    if problem:
        return problem
    job = KernelJob(Path("/tmp"), Path("/tmp"), Path("/tmp"), Limits(), 60999, "probe", Path("/dev/null"))
    probe = sandbox.user_only_command(job, [sys.executable, "-c", "import ipykernel"])
    if subprocess.run(probe, capture_output=True).returncode:  # as the kernel will run: no capabilities
        return f"another uid cannot run {sys.executable} here (a folder above it is private)"
    return None


@pytest.mark.slow
def test_reduced_sandbox_where_bubblewrap_is_unusable(tmp_path):
    """Gradescope's containers may forbid namespaces: the kernel then runs as its own uid, reading nothing."""
    problem = _uid_cannot_run_python()
    if problem:
        pytest.skip(problem)
    root = tmp_path / "autograder"
    secrets = [
        str(root / "source" / "solutions" / f"{NB01}.ipynb"),
        str(root / "source"),
        str(root / "submission"),
        str(root / "work" / "results" / ".reference"),
        str(root / "work" / "results" / ".course" / "source"),
        str(root / "work" / "results" / ".course" / "gradebook.db"),
    ]
    source = nbformat.read(paths.source_notebook(NB01), as_version=4)
    filled = answers.reference_answers(source)
    filled["attention_numpy"] = PROBE.format(paths=secrets, results=str(root / "results" / "results.json"))
    filled["attention_numpy"] += answers.reference_answers(source)["attention_numpy"]
    data = _run_autograder(
        _autograder_root(tmp_path, make_submission(NB01, None, defaults=filled)), AUTOGRADER_SANDBOX="user"
    )
    lost = [t["name"] for t in data["tests"] if t["score"] < t["max_score"]]
    assert lost == [f"{NB01} · {PROBE_RULE_TEST}"], data  # the probe imports os: the forbidden-built-in rule's points
    assert "forbidden:" in data["output"], data
    executed = nbformat.read(root / "work" / "results" / ".state" / "submission" / f"{NB01}.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    uid = int(printed.split("PROBE uid ")[1].split()[0])
    assert uid >= sandbox.SANDBOX_UID, "learner code ran as the grader's user"
    assert printed.count("PROBE denied") == len(secrets) + 1, printed
    assert "PROBE READ" not in printed and "PROBE WROTE" not in printed, printed
