"""The catalogue: every realistic wrong implementation loses points; every correct one gets full marks."""

from __future__ import annotations

import pytest
from conftest import NAMES
from support import catalogue_entries, entry_kind, entry_tests, expected_message, expected_per_test

ENTRIES = [(name, path) for name in NAMES for path in catalogue_entries(name)]


@pytest.mark.slow
@pytest.mark.parametrize("name,path", ENTRIES, ids=[f"{n[:2]}/{p.stem}" for n, p in ENTRIES])
def test_catalogue_entry(graded_catalogue, name, path):
    result, pack = graded_catalogue[path]
    assert result.status == "graded", result.errors
    if entry_kind(path) == "right":
        failed = [(t.name, t.message) for t in result.tests if t.status != "passed"]
        assert result.score == result.auto_max, f"{path.name} lost points (submission {result.student_id}): {failed}"
        forbidden = [f for f in result.flags if f.startswith("forbidden")]
        assert forbidden == [], f"an honest answer is flagged to the instructor ({result.student_id}): {forbidden}"
        return
    reach = entry_tests(name, pack)  # per entry of the submission, the tests that may read a cell it answers
    lost = [t for t in result.tests if t.score < t.max_score and not t.manual]  # written answers wait for a person
    mine = [t for t in lost if t.name in reach[path]]
    assert mine, f"{path.name} was not caught by the tests that read its cells: {sorted(reach[path])}"
    stray = [t.name for t in lost if not any(t.name in tests for tests in reach.values())]
    assert stray == [], f"{result.student_id}: tests that read none of its entries' cells lost points"
    want = expected_message(path)
    if want:
        messages = " | ".join(t.message for t in mine)
        assert want in messages, f"no message of its own tests names the mistake {want!r}: {messages}"
    for test, text in expected_per_test(path).items():
        named = [t.message for t in mine if t.name == test]
        assert named and text in named[0], f"{test} does not name the mistake {text!r}: {named}"


@pytest.mark.parametrize("name", NAMES)
def test_catalogue_is_big_enough(name):
    kinds = [entry_kind(p) for p in catalogue_entries(name)]
    assert kinds.count("wrong") >= 10 if name.startswith("01") else kinds.count("wrong") >= 6
    assert kinds.count("right") >= (4 if name.startswith("01") else 3)
