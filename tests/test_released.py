"""A learner's copy of an earlier release is not an edit: release keeps what it handed out before."""

from __future__ import annotations

import copy

import nbformat

from autograder import paths
from autograder.material import answers, released
from autograder.run.rebuild import compare_cells

NB01 = "01_scaled_dot_product_attention"


def _release() -> nbformat.NotebookNode:
    return nbformat.read(paths.NOTEBOOKS / f"{NB01}.ipynb", as_version=4)


def _first_test(nb: nbformat.NotebookNode):
    return next(c for c in nb.cells if answers.is_test(c))


def test_a_copy_of_the_previous_release_is_no_edit_after_points_and_code_change():
    before = _release()
    after, source = _release(), _release()
    test = _first_test(after)
    test.metadata.nbgrader["points"] = float(test.metadata.nbgrader["points"]) + 2  # the instructor's change
    test.source += "\nprint('one more visible line')"
    flagged = compare_cells(after, before)
    assert any("nbgrader metadata of" in f for f in flagged) and any("edited" in f for f in flagged), flagged

    assert released.remember(source, before, after)  # what `release` does, into the source's metadata
    after.metadata["workbook"] = {released.KEY: released.earlier(source)}
    assert compare_cells(after, before) == []  # the learner kept the earlier copy: nothing to flag
    assert not released.remember(source, before, after)  # releasing again changes nothing

    forged = copy.deepcopy(before)
    _first_test(forged).metadata.nbgrader["points"] = 99.0  # no release ever gave this
    assert any("nbgrader metadata of" in f for f in compare_cells(after, forged))


def test_a_fingerprint_of_metadata_nested_past_reason_is_no_match():
    deep: dict = {}
    for _ in range(5000):
        deep = {"x": deep}
    assert released.fingerprint("code", "", {"grade_id": "x", "deep": deep}, False) == ""
