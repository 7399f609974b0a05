"""Scoring is decided once, from the facts a worker returns (unit tests: no kernel)."""

from __future__ import annotations

import nbformat

from autograder import scoring
from autograder.harness import TrustedVerdict
from autograder.results import NotebookResult


def _source() -> nbformat.NotebookNode:
    """A source notebook with two test cells, one of them with hidden checks."""
    nb = nbformat.v4.new_notebook()
    for gid, points, text in [("t_visible", 2, "check(1)"), ("t_hidden", 3, "check(1)\n### BEGIN HIDDEN TESTS\ncheck(2)")]:
        cell = nbformat.v4.new_code_cell(text)
        cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "grade_id": gid, "points": points}
        nb.cells.append(cell)
    return nb


def _score(facts: scoring.Facts) -> NotebookResult:
    result = NotebookResult("s", "nb", "graded")
    scoring.score(_source(), facts, result)
    return result


def test_points_come_from_the_trusted_verdict_only():
    kernel = {"t_visible": (True, ""), "t_hidden": (True, "")}  # the learner's kernel says all passed
    result = _score(scoring.Facts(kernel, {"t_visible": TrustedVerdict(True), "t_hidden": TrustedVerdict(False, "no")}))
    assert (result.score, result.max_score) == (2.0, 5.0)
    hidden = result.tests[1]
    assert (hidden.status, hidden.message, hidden.nbgrader_passed, hidden.trusted_passed) == ("failed", "no", True, False)


def test_a_test_never_judged_scores_zero_with_the_runs_reason():
    result = _score(scoring.Facts({}, {"t_visible": TrustedVerdict(True)}, reason="the kernel died"))
    assert result.score == 2.0
    assert result.tests[1].message == "the kernel died" and result.tests[1].score == 0.0


def test_flags_are_structured_and_each_given_once():
    finding = "answer cell 'sdpa', line 1: calls F.scaled_dot_product_attention"
    trusted = {"t_visible": TrustedVerdict(True, "", [finding]), "t_hidden": TrustedVerdict(False, "x", [finding])}
    edited = scoring.Flag("edited", "test cell 't_visible' edited; source version used")
    result = _score(scoring.Facts({}, trusted, flags=[edited]))
    assert result.flags == [str(edited), f"forbidden: {finding}"]
