"""The reading of which answer cells each test may depend on (tests/dependencies.py), on small notebooks."""

from __future__ import annotations

import nbformat
import pytest
from conftest import NAMES
from dependencies import answer_dependencies
from support import catalogue_entries, catalogue_submissions, entry_kind, entry_tests

from autograder import paths


def notebook(*cells: tuple[str, str]) -> nbformat.NotebookNode:
    """Cells as (kind, source): kind 'answer:ID', 'test:ID' or 'plain'."""
    nb = nbformat.v4.new_notebook()
    for kind, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        if kind != "plain":
            role, gid = kind.split(":")
            cell.metadata["nbgrader"] = {"grade_id": gid, "solution": role == "answer", "grade": role == "test"}
        nb.cells.append(cell)
    return nb


def test_a_test_depends_on_what_it_calls_and_on_what_made_its_objects():
    nb = notebook(
        ("answer:net", "class Net:\n    pass"),
        ("answer:f", "def f(x):\n    return x"),
        ("plain", "model = Net()"),
        ("test:t_model", "assert model is not None"),
        ("test:t_f", "assert f(1) == 1"),
    )
    assert answer_dependencies(nb) == {"t_model": {"net"}, "t_f": {"f"}}


def test_a_call_may_change_its_arguments_in_place():
    nb = notebook(
        ("plain", "data = [3, 1, 2]"),
        ("answer:fill", "def fill(xs):\n    xs.append(0)"),
        ("plain", "fill(data)"),
        ("test:t", "assert len(data) == 4"),
    )
    assert answer_dependencies(nb)["t"] == {"fill"}


def test_a_function_body_is_read_where_it_is_called():
    nb = notebook(
        ("answer:outer", "def outer():\n    return inner()"),
        ("answer:inner", "def inner():\n    return 1"),
        ("test:t", "assert outer() == 1"),
    )
    assert answer_dependencies(nb)["t"] == {"outer", "inner"}


def test_a_plain_rebinding_clears_a_name_and_a_loop_may_not_run():
    nb = notebook(
        ("answer:make", "def make():\n    return 1"),
        ("plain", "x = make()\ny = make()\nz = make()"),
        ("plain", "x = 2\nfor _ in []:\n    y = 3"),
        ("plain", "for _ in range(2):\n    w = z\n    z = 5"),
        ("test:t_x", "assert x == 2"),
        ("test:t_y", "assert y"),
        ("test:t_w", "assert w"),
    )
    depends = answer_dependencies(nb)
    assert depends["t_x"] == set()
    assert depends["t_y"] == {"make"}, "the loop may not run: y may still be make()'s"
    assert depends["t_w"] == {"make"}, "the first pass reads z before the loop rebinds it"


def test_a_cell_that_cannot_be_parsed_makes_every_later_test_depend_on_everything():
    nb = notebook(
        ("answer:a", "def a():\n    return 1"),
        ("answer:b", "def b(:\n"),
        ("answer:c", "def c():\n    return 1"),
        ("test:t", "assert c() == 1"),
    )
    assert answer_dependencies(nb)["t"] == {"a", "b", "c"}


@pytest.mark.parametrize("name", NAMES)
def test_every_wrong_entry_is_read_by_a_test_and_shares_no_test_with_its_pack(name):
    """The packing of the catalogue: each entry has tests of its own, and no test reads two entries of a pack."""
    packs = [files for student, files in catalogue_submissions(name) if "-wrong-" in student]
    assert sorted(p for files in packs for p in files) == sorted(
        p for p in catalogue_entries(name) if entry_kind(p) == "wrong"
    )
    for files in packs:
        reach = entry_tests(name, files)
        assert all(reach[p] for p in files), {p.name: reach[p] for p in files}
        counted = [t for p in files for t in reach[p]]
        assert len(counted) == len(set(counted)), f"a test reads two entries of {[p.name for p in files]}"


def test_the_real_notebooks_tests_each_depend_on_an_answer():
    for name in NAMES:
        depends = answer_dependencies(nbformat.read(paths.source_notebook(name), as_version=4))
        assert depends and all(depends.values()), name
