"""The sample submissions in data/ are current and grade as their names say."""

from __future__ import annotations

import filecmp
import html
import subprocess
import sys

import pytest
from conftest import NAMES, ROOT
from leaks import leaked

from autograder import paths
from autograder.results import NO_ANSWER

NB01 = "01_scaled_dot_product_attention"


def test_sample_submissions_are_current(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "data" / "make_samples.py"), str(tmp_path)], check=True, capture_output=True
    )
    cmp = filecmp.dircmp(tmp_path, paths.DATA / "submissions")
    assert not (cmp.left_only or cmp.right_only), "run python data/make_samples.py"
    for student in cmp.common_dirs:
        sub = filecmp.dircmp(tmp_path / student, paths.DATA / "submissions" / student)
        assert not (sub.left_only or sub.right_only or sub.diff_files), f"{student}: run python data/make_samples.py"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_reference_gets_full_marks(graded_samples, name):
    result = graded_samples[0][f"ada/{name}"]
    assert result.status == "graded", result.errors
    assert result.max_score > 0
    # every automatic point; written answers wait for a person (tests/test_manual_grading.py)
    assert result.score == result.auto_max, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.flags == []


@pytest.mark.slow
def test_untouched_student_notebook_scores_zero_everywhere(graded_samples):
    result = graded_samples[0][f"ben/{NB01}"]
    assert result.score == 0 and result.max_score > 0
    automatic = [t for t in result.tests if not t.manual]
    assert automatic
    for test in automatic:
        assert test.status == "failed"
        assert "NotImplementedError" in test.message, (test.name, test.message)
    # a written answer left blank is nbgrader's automatic 0, shown as such (never counted as to-grade)
    assert all(t.status == NO_ANSWER and t.score == 0 for t in result.tests if t.manual)


@pytest.mark.slow
def test_partial_and_classic_mistake(graded_samples):
    results = graded_samples[0]
    partial, mistake = results[f"cy/{NB01}"], results[f"dee/{NB01}"]
    assert 0 < partial.score < partial.max_score
    assert 0 < mistake.score < mistake.max_score
    assert any("not divided by √d_k" in t.message for t in mistake.tests)


@pytest.mark.slow
def test_reports_and_feedback(graded_samples, graded_batch):
    results, out = graded_samples
    header = (out / "grades.csv").read_text().splitlines()[0]
    assert header.startswith("student_id,notebook,score,max_score")
    rows = (out / "grades.csv").read_text().splitlines()[1:]
    assert len(rows) == len(graded_batch["results"])  # the batch's: samples, catalogue and bad inputs
    data = __import__("json").loads((out / "results.json").read_text())
    for sub in data["submissions"]:
        for test in sub["tests"]:
            assert {"name", "score", "max_score", "status", "message"} <= set(test)
    for key, result in results.items():
        page = out / "feedback" / result.student_id / f"{result.notebook}.html"
        assert page.exists(), key
        text = html.unescape(page.read_text())
        assert leaked(text, result.notebook) == [] or result.student_id == "ada", key
        assert "BEGIN HIDDEN TESTS" not in text
        for test in result.tests:
            assert test.name in text


@pytest.mark.slow
def test_reference_feedback_shows_no_hidden_test_source(graded_samples):
    results, out = graded_samples
    from leaks import secret_lines

    for name in NAMES:
        text = html.unescape((out / "feedback" / "ada" / f"{name}.html").read_text())
        assert [ln for ln in secret_lines(name, "hidden") if ln in text] == []


@pytest.mark.slow  # check runs the notebook in a kernel
def test_check_prints_a_table_without_hidden_source(capsys):
    from autograder.commands.check import main

    code = main([str(paths.DATA / "submissions" / "cy" / f"{NB01}.ipynb")])
    out = capsys.readouterr().out
    assert code == 1
    assert "test_hand_example" in out and "✓ passed" in out and "✗ failed" in out
    assert "hidden tests will check more" in out.lower()
    assert leaked(out, NB01) == []
