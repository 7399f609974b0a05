"""Scoring is decided once, from the facts a worker returns (unit tests: no kernel)."""

from __future__ import annotations

import nbformat

from autograder.checks import scoring
from autograder.results import NotebookResult, TrustedVerdict


def _source() -> nbformat.NotebookNode:
    """A source notebook with two test cells, one of them with hidden checks."""
    nb = nbformat.v4.new_notebook()
    hidden = "check.true('a', 1)\n### BEGIN HIDDEN TESTS\ncheck.true('b', 2)\n### END HIDDEN TESTS\n"
    for gid, points, text in [("t_visible", 2, "check.true('a', 1)"), ("t_hidden", 3, hidden)]:
        cell = nbformat.v4.new_code_cell(text)
        cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "grade_id": gid, "points": points}
        nb.cells.append(cell)
    return nb


def _score(facts: scoring.Facts) -> NotebookResult:
    result = NotebookResult(student_id="s", notebook="nb", status="graded")
    scoring.score(_source(), facts, result)
    return result


def test_points_come_from_the_trusted_verdict_only():
    kernel = {"t_visible": (True, ""), "t_hidden": (True, "")}  # the learner's kernel says all passed
    result = _score(scoring.Facts(kernel, {"t_visible": TrustedVerdict(True), "t_hidden": TrustedVerdict(False, "no")}))
    assert (result.score, result.max_score) == (2.0, 5.0)
    hidden = result.tests[1]
    assert (hidden.status, hidden.message, hidden.nbgrader_passed, hidden.trusted_passed) == (
        "failed",
        "no",
        True,
        False,
    )


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


def test_hidden_only_when_every_check_is_hidden():
    visible_and_hidden = _source().cells[1].source
    assert not scoring.hidden_only(visible_and_hidden)
    assert scoring.hidden_only("x = 1\n### BEGIN HIDDEN TESTS\ncheck.close('a', x, 1)\n### END HIDDEN TESTS\n")
    assert not scoring.hidden_only("check.true('a', True)")


def test_each_part_says_what_it_did():
    trusted = {
        "t_visible": TrustedVerdict(True, "", checks={"visible": 3, "hidden": 0}),
        "t_hidden": TrustedVerdict(False, "[t/k] wrong", checks={"visible": 3, "hidden": 2}, failed_in="hidden"),
    }
    visible, mixed = _score(scoring.Facts({}, trusted)).tests
    assert (visible.hidden, mixed.hidden) == (False, False), "a test with visible checks is not 'hidden'"
    assert visible.parts() == "3 visible checks passed"
    assert mixed.parts() == "3 visible checks passed, hidden checks: 1 failed (1 passed before it)"
    mixed.failed_in, mixed.visible_checks, mixed.hidden_checks = "visible", 1, 0
    assert mixed.parts() == "visible checks: 1 failed, hidden checks not run"


def test_kinds_are_typed_and_their_json_spelling_unchanged():
    import json

    from autograder.results import Outcome, Problem, Status, problems

    result = NotebookResult(
        student_id="ann", notebook="01_x", status=Status.ERROR, errors=["host: the kernel did not start (again)"]
    )
    assert result.retry_next_run and problems(result.errors) == {Problem.HOST}
    assert NotebookResult(  # the grader's own failure is not the learner's either: retried (issue 64 item 6)
        student_id="ben", notebook="01_x", status=Status.ERROR, errors=["grader error: boom"]
    ).retry_next_run
    assert not NotebookResult(student_id="cy", notebook="01_x", status=Status.REJECTED, errors=["empty"]).retry_next_run
    text = json.dumps({"status": Status.GRADED, "test": Outcome.PASSED})
    assert text == '{"status": "graded", "test": "passed"}'
    assert Status("graded") is Status.GRADED and Status.GRADED == "graded"
