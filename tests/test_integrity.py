"""One course key, two grading runs and replays: reproducible per-learner inputs, no key leaks, similarity flags.

Three learners of notebook 01 (ada: the reference; twin: ada's notebook under another id;
cy: a partial answer) are graded with a course key into R1, and cy alone again into R2 with
the same key. Then `replay` shows each one's inputs for one test.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import ROOT, SANDBOX_PROBLEM, grade_options

from autograder import paths
from autograder.checks import coursekey
from autograder.kernel.limits import Limits
from autograder.run import grade

NB01 = "01_scaled_dot_product_attention"
TEST = "test_matches_torch"
pytestmark = pytest.mark.slow


def _grade(subs, out, key_file, similarity=True) -> dict:
    opts = grade_options(
        submissions=subs, out=out, jobs=2, limits=Limits(), quiet=True, key_file=key_file, similarity=similarity
    )
    return {r.key: r for r in grade.grade(opts)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """R1: ada, twin and cy; R2: cy again, with the same key."""
    root = tmp_path_factory.mktemp("integrity")
    key_file = root / "course.key"
    coursekey.load(key_file, create=True)  # the course's key, made once: a named one is never made by grade
    subs = root / "subs"
    for student, source in (("ada", "ada"), ("twin", "ada"), ("cy", "cy")):
        (subs / student).mkdir(parents=True)
        shutil.copy(paths.DATA / "submissions" / source / f"{NB01}.ipynb", subs / student)
    r1 = _grade(subs, root / "R1", key_file)
    shutil.rmtree(subs / "ada"), shutil.rmtree(subs / "twin")
    r2 = _grade(subs, root / "R2", key_file, similarity=False)
    return {"root": root, "key_file": key_file, "r1": r1, "r2": r2}


def _replay(results, student, save, key_file) -> str:
    cmd = [sys.executable, "-m", "autograder", "replay", str(results), student, NB01, TEST, "--save", str(save)]
    cmd += ["--key", str(key_file)]
    done = subprocess.run(cmd + (["--unsafe"] if SANDBOX_PROBLEM else []), cwd=ROOT, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _tests(result) -> list[tuple]:
    return [(t.name, t.score, t.status, t.message) for t in result.tests]


def test_the_same_submission_gets_the_same_grade_on_every_run(runs):
    cy1, cy2 = runs["r1"][f"cy/{NB01}"], runs["r2"][f"cy/{NB01}"]
    assert _tests(cy1) == _tests(cy2) and cy1.score == cy2.score
    assert any("max abs error" in t.message or t.score < t.max_score for t in cy1.tests)  # a graded partial answer
    ada, twin = runs["r1"][f"ada/{NB01}"], runs["r1"][f"twin/{NB01}"]
    assert ada.score == twin.score == ada.auto_max  # the reference gets full marks on its own inputs


def test_replay_shows_each_learners_own_inputs_the_same_on_every_run(runs):
    root = runs["root"]
    asked = (("ada", "R1", "ada"), ("twin", "R1", "twin"), ("cy1", "R1", "cy"), ("cy2", "R2", "cy"))
    with ThreadPoolExecutor(2) as pool:  # two at once, as two cores allow
        printed = pool.map(lambda a: _replay(root / a[1], a[2], root / f"{a[0]}.npz", runs["key_file"]), asked)
        out = dict(zip([a[0] for a in asked], printed, strict=True))
    arrays = {name: dict(np.load(root / f"{name}.npz")) for name in out}
    inputs = {name: [v for k, v in a.items() if ".in." in k] for name, a in arrays.items()}
    assert inputs["ada"] and len(inputs["ada"]) == len(inputs["twin"])
    assert any(
        a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(inputs["ada"], inputs["twin"], strict=True)
    )
    assert arrays["cy1"].keys() == arrays["cy2"].keys()
    assert all(np.array_equal(arrays["cy1"][k], arrays["cy2"][k]) for k in arrays["cy1"])  # same inputs, outputs
    assert "INSTRUCTOR ONLY" in out["ada"] and "expected:" in out["ada"] and "learner's output:" in out["ada"]
    cy = next(t for t in runs["r1"][f"cy/{NB01}"].tests if t.name == TEST)
    assert f"score now {cy.score:g}/{cy.max_score:g}" in out["cy1"] and "graded run: " in out["cy1"]


def test_the_key_is_in_no_results_file_feedback_or_bundle(runs, released):
    key = coursekey.load(runs["key_file"], create=False)
    forms = [key, key.hex().encode(), key.hex().upper().encode(), base64.b64encode(key), base64.b64encode(key)[:20]]
    files = [p for folder in ("R1", "R2") for p in (runs["root"] / folder).rglob("*") if p.is_file()]
    files += [p for p in released.rglob("*") if p.is_file()]
    assert len(files) > 20
    leaks = [str(p) for p in files if any(form in p.read_bytes() for form in forms)]
    assert leaks == []
    fingerprint = coursekey.fingerprint(key)
    assert fingerprint in (runs["root"] / "R1" / "key.json").read_text()


def test_similarity_flags_the_copies_for_the_instructor_only(runs):
    import json

    r1 = runs["root"] / "R1"
    subs = {s["student_id"]: s for s in json.loads((r1 / "results.json").read_text())["submissions"]}
    assert subs["ada"]["similarity"]["flagged"] and "reference" in subs["ada"]["similarity"]["with"]
    assert "run:twin" in subs["ada"]["similarity"]["with"]
    page, table = (r1 / "similarity.html").read_text(), (r1 / "similarity.csv").read_text()
    assert "run:ada" in page and "run:twin" in table
    for student in ("ada", "twin", "cy"):
        feedback = (r1 / "feedback" / student / f"{NB01}.html").read_text().lower()
        assert "run:" not in feedback and "similarity report" not in feedback and "flagged" not in feedback
        assert "twin" not in feedback.replace(student, "")  # no other learner named
        assert not any("similar" in f for f in runs["r1"][f"{student}/{NB01}"].flags)
