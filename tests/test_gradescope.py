"""Gradescope: the zip's layout, and run_autograder against a folder laid out like /autograder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import numpy as np
import pytest
from conftest import ROOT, SANDBOX_PROBLEM, grade_options
from leak_plants import MARKER, planted_answers
from support import PROBE_RULE_TEST, make_submission

from autograder import paths
from autograder.checks import coursekey
from autograder.kernel import sandbox
from autograder.kernel.launchers import KernelJob
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.results import TestResult as Verdict
from autograder.run import grade
from autograder.scale import gradescope
from autograder.scale.gradescope import build_zip, to_gradescope

NB01 = "01_scaled_dot_product_attention"
NB02 = "02_masks"
STATUSES = {"passed", "failed"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format"}
TEST_FIELDS |= {"tags", "visibility", "extra_data"}
TOP_FIELDS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format"}
TOP_FIELDS |= {"visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}


def validate_results(data: dict) -> None:
    """Gradescope's results.json specification (gradescope-autograders.readthedocs.io, "Autograder Specifications")."""
    assert set(data) <= TOP_FIELDS, set(data) - TOP_FIELDS
    assert isinstance(data["score"], (int, float)) and not isinstance(data["score"], bool)
    assert isinstance(data["tests"], list) and data["tests"]
    for test in data["tests"]:
        assert set(test) <= TEST_FIELDS, set(test) - TEST_FIELDS
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test.get("status", "passed") in STATUSES, test
        assert test["visibility"] in VISIBILITIES and test["output_format"] in FORMATS
    for key in ("visibility", "stdout_visibility"):
        assert data.get(key, "visible") in VISIBILITIES
    assert data.get("output_format", "text") in FORMATS
    assert abs(data["score"] - sum(t["score"] for t in data["tests"])) < 1e-9


def test_zip_layout(tmp_path):
    path = build_zip(tmp_path / "autograder.zip")
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        assert {"setup.sh", "run_autograder", "requirements-grader.txt", "gradescope.json"} <= names
        assert f"solutions/{NB01}.ipynb" in names and "autograder/run/grade.py" in names
        assert not any(n.startswith("source/") for n in names), "Gradescope unpacks the zip INTO /autograder/source"
        assert (zf.getinfo("run_autograder").external_attr >> 16) & 0o111
        assert json.loads(zf.read("gradescope.json")) == {"hidden_outcomes": "after_published"}
        setup = zf.read("setup.sh").decode()
    assert "requirements-grader.txt" in setup and "requirements.txt" not in setup.replace("-grader.txt", "")
    assert "3, 11" in setup and "24.04" in setup  # the Python it needs and the base image that has it
    with pytest.raises(ValueError):
        build_zip(tmp_path / "x.zip", hidden_outcomes="sometimes")


def test_written_answers_and_messages_in_gradescope_terms():
    t = Verdict(name="q_why", score=0.0, max_score=2.0, status="needs manual grading", manual=True)
    shown = Verdict(
        name="test_x",
        score=0.0,
        max_score=1.0,
        status="failed",
        message="see [here](http://x) <img src=y> *",
        visible_checks=2,
        hidden_checks=1,
        failed_in="hidden",
    )
    data = to_gradescope([NotebookResult(student_id="s", notebook=NB01, status="graded", tests=[t, shown])])
    validate_results(data)
    written, visible, held = data["tests"]
    assert written["max_score"] == 0 and "status" not in written and "graded by a person" in written["output"]
    assert visible["visibility"] == "visible" and visible["status"] == "passed" and "hidden" not in visible["output"]
    assert held["visibility"] == "after_published" and held["max_score"] == 1.0
    # learner-derived text is never markup: every Markdown or HTML character is escaped
    assert re.search(r"(?<!\\)[\[\]<>()*]", held["output"]) is None, held["output"]
    assert "\\[here\\]\\(http://x\\)" in held["output"] and "\\<img" in held["output"]
    at_once = to_gradescope(
        [NotebookResult(student_id="s", notebook=NB01, status="graded", tests=[shown])], hidden_outcomes="visible"
    )
    assert [t["visibility"] for t in at_once["tests"]] == ["visible"]


def _autograder_root(tmp_path, nb, hidden_outcomes: str = "after_published", zip_path: Path | None = None) -> Path:
    """/autograder as Gradescope builds it: the zip unpacked into source/, run_autograder copied beside it, setup.sh run."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(zip_path or build_zip(tmp_path / "autograder.zip", hidden_outcomes)) as zf:
        zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / name, 0o755)  # zipfile drops the modes Gradescope's unzip keeps
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    setup = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")],
        env={**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_APT": "0", "AUTOGRADER_VENV": sys.prefix},
        capture_output=True,
        text=True,
        timeout=900,
        cwd=root / "source",
    )
    assert setup.returncode == 0, setup.stderr[-3000:]
    assert "course ready" in setup.stdout
    (root / "submission").mkdir()
    (root / "results").mkdir()
    nbformat.write(nb, root / "submission" / f"{NB01}.ipynb")
    return root


def _run_autograder(root: Path, drop: tuple[str, ...] = (), **env) -> dict:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_VENV": sys.prefix, **env}
    env = {k: v for k, v in env.items() if k not in drop}
    proc = subprocess.run(
        [str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900, cwd=root
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text())
    validate_results(data)
    return data


def _plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text).replace("  \n", "\n")


@pytest.mark.slow
def test_run_autograder_writes_valid_results(tmp_path):
    nb = make_submission(NB01, ROOT / "tests" / "catalogue" / NB01 / "wrong_no_scale.py")
    root = _autograder_root(tmp_path, nb)
    data = _run_autograder(root)
    scored = [t for t in data["tests"] if t["max_score"] > 0]
    assert 0 < data["score"] < sum(t["max_score"] for t in scored)
    held_back = [t for t in scored if t["visibility"] == "after_published"]
    assert held_back, "by default, tests that hidden checks decide are shown after publishing"
    assert all(t["visibility"] in ("visible", "after_published") for t in data["tests"])
    for t in data["tests"]:  # nothing shown at once says what a hidden check found
        if t["visibility"] == "visible":
            assert not re.search(r"hidden checks? passed|hidden checks:", _plain(t["output"])), t
    assert any("√d_k" in _plain(t["output"]) for t in data["tests"])
    assert all(t["output_format"] == "md" for t in data["tests"])
    shutil.rmtree(root / "work", ignore_errors=True)


@pytest.mark.slow
def test_run_autograder_shows_no_hidden_value(tmp_path):
    """Answers that raise with the hidden inputs they are given in their message (tests/leak_plants.py)."""
    root = _autograder_root(tmp_path, make_submission(NB01, None, defaults=planted_answers(NB01)))
    data = _run_autograder(root)
    assert any("raised by your code on a hidden test's input" in t["output"] for t in data["tests"])
    shown = [t["output"] for t in data["tests"] if "visible checks: 1 failed" not in t["output"]]  # not their own
    assert not [m for text in shown for m in MARKER.findall(text)], shown
    assert not MARKER.search(data.get("output", "")) and not MARKER.search(json.dumps(data.get("extra_data", {})))
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
    job = KernelJob(
        work=Path("/tmp"),
        export=Path("/tmp"),
        ipc=Path("/tmp"),
        limits=Limits(),
        uid=60999,
        name="probe",
        pidfile=Path("/dev/null"),
    )
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


def _replay(results: Path, student: str, save: Path) -> str:
    """`python -m autograder replay` as an instructor types it: no --key, no --seed-id (the defaults find them)."""
    cmd = [sys.executable, "-m", "autograder", "replay", str(results), student, NB01, REPLAYED, "--save", str(save)]
    done = subprocess.run(cmd + (["--unsafe"] if SANDBOX_PROBLEM else []), cwd=ROOT, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _inputs(save: Path) -> list:
    return [v for k, v in sorted(np.load(save).items()) if ".in." in k]


REPLAYED = "test_matches_torch"  # its inputs are drawn from the course key


@pytest.mark.slow
def test_gradescope_and_grade_share_the_course_key_and_replay(tmp_path):
    """One key by default: the zip's (from `gradescope`), `grade`'s and `replay`'s; a Gradescope grade replays here."""
    assert gradescope.main(["--out", str(tmp_path / "autograder.zip")]) == 0  # the course's key, found by default
    nb = nbformat.read(paths.DATA / "submissions" / "cy" / f"{NB01}.ipynb", as_version=4)  # a partial answer
    root = _autograder_root(tmp_path, nb, zip_path=tmp_path / "autograder.zip")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"id": 4242, "email": "cy@x.org"}]}))
    online = _run_autograder(root, drop=(coursekey.KEY_ENV,))  # as on Gradescope: only the zip's key
    harness = root / "work" / "results"
    subs = tmp_path / "subs" / "cy"  # the learner's notebook, downloaded from Gradescope, graded here
    subs.mkdir(parents=True)
    nbformat.write(nb, subs / f"{NB01}.ipynb")
    local = grade.grade(grade_options(subs.parent, tmp_path / "R", seed_id="gradescope:4242"))[0]
    assert (harness / "key.json").read_text() == (tmp_path / "R" / "key.json").read_text()  # one fingerprint
    graded = {t["name"].split(" · ")[1]: t["score"] for t in online["tests"] if t["max_score"] > 0}
    assert {t.name: t.score for t in local.tests if not t.manual} == graded and 0 < local.score < local.auto_max
    assert local.seed_id == "gradescope:4242"
    said = _replay(harness, "submission", tmp_path / "online.npz")  # Gradescope's own run, replayed here
    _replay(tmp_path / "R", "cy", tmp_path / "local.npz")
    online_inputs, local_inputs = _inputs(tmp_path / "online.npz"), _inputs(tmp_path / "local.npz")
    assert online_inputs and len(online_inputs) == len(local_inputs)
    assert all(np.array_equal(a, b) for a, b in zip(online_inputs, local_inputs, strict=True))
    score = graded[REPLAYED]
    assert f"score now {score:g}/" in said and f"graded run: {score:g}/" in said
    other = grade.grade(grade_options(subs.parent, tmp_path / "R2"))[0]  # drawn for "cy": other inputs
    _replay(tmp_path / "R2", "cy", tmp_path / "other.npz")
    other_inputs = _inputs(tmp_path / "other.npz")
    assert other.seed_id == "" and any(
        a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(other_inputs, local_inputs, strict=True)
    )


@pytest.mark.slow
def test_run_autograder_starts_clean_in_a_root_that_graded_another_learner(tmp_path):
    nb01 = make_submission(NB01, None)
    root = _autograder_root(tmp_path, nb01)
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"id": 1}]}))
    first = _run_autograder(root)
    assert first["tests"] and all(t["name"].startswith(NB01) for t in first["tests"])
    for old in (root / "submission").iterdir():  # the next learner hands in notebook 02 only
        old.unlink()
    nbformat.write(make_submission(NB02, None), root / "submission" / f"{NB02}.ipynb")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"id": 2}]}))
    second = _run_autograder(root)
    names = [t["name"] for t in second["tests"]]
    assert names and all(n.startswith(NB02) for n in names), names  # nothing of the first learner's
    held = [p.name for p in (root / "work" / "results" / ".state").iterdir()]
    assert held == ["submission"] and [
        p.name for p in (root / "work" / "results" / ".state" / "submission").glob("*.json")
    ] == [f"{NB02}.json"]
    assert NB01 not in (root / "work" / "results" / "grades.csv").read_text()
