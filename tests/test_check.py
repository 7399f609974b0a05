"""workbook.Check on its own, without a kernel: verdicts, messages, tolerances, and the context it records into.

The context (workbook.CheckContext) is the one object that holds what the checks record and,
under grading, the grader's hooks; the default one is a visible test in the learner's own
notebook. These tests run in this process only (the quick run starts no kernel).
"""

from __future__ import annotations

import threading
import types

import nbformat
import numpy as np
import pytest
import torch
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from autograder import workbook
from autograder.checks.harness import Harness
from autograder.workbook import Check, CheckContext, CheckFailure, GraderHooks


@pytest.fixture
def fresh() -> CheckContext:
    """A fresh notebook-like context (no hooks) installed for the test: nothing recorded elsewhere is seen."""
    with workbook.checking(CheckContext()) as context:
        yield context


@pytest.fixture
def notebook() -> CheckContext:
    """The default context (a learner's own notebook), emptied for the test and restored after it."""
    context = workbook.current_context()
    saved = dict(context.parts), list(context.this_cell), list(context.forbidden)
    for record in (context.parts, context.this_cell, context.forbidden):
        record.clear()
    yield context
    context.parts.clear()
    context.parts.update(saved[0])
    context.this_cell[:] = saved[1]
    context.forbidden[:] = saved[2]


def hooks(scanner=None, mutations=None, copier=None, budget=None) -> GraderHooks:
    """Grader hooks for a test: each given one, and a stand-in that fails the test if an unexpected one is used."""

    def unexpected(*args):
        pytest.fail(f"a grader hook was called that this test did not expect: {args!r}")

    return GraderHooks(
        scanner=scanner or unexpected,
        mutations=mutations or (lambda: 0),
        kernel_copier=copier or unexpected,
        memory_budget=budget or unexpected,
    )


def failure(call) -> str:
    """The message of the CheckFailure `call()` raises (fails the test if it raises none)."""
    with pytest.raises(CheckFailure) as info:
        call()
    return str(info.value)


# -- close -------------------------------------------------------------------------


def test_close_passes_within_the_documented_tolerances_and_fails_just_outside(fresh):
    check = Check("test_close")
    check.close("abs", torch.tensor([0.0, 1.0]), torch.tensor([9e-6, 1.0]))  # |diff| <= atol 1e-5
    check.close("rel", np.array([1000.0]), np.array([1000.0 + 0.0099]))  # <= atol + rtol * |expected| = 0.01001
    message = failure(lambda: check.close("rel_out", np.array([1000.0]), np.array([1000.0 + 0.0105])))
    assert message.startswith("[test_close/rel_out] values differ (max abs error 0.0105)")
    message = failure(lambda: check.close("abs_out", torch.tensor([0.0]), torch.tensor([2e-5])))
    assert "values differ" in message
    check.close("loose", torch.tensor([0.0]), torch.tensor([0.05]), atol=0.1)  # the check's own tolerance
    assert fresh.parts["test_close"]["asserts"] == 5


def test_close_treats_nan_as_equal_to_nan_and_names_a_nan_that_should_not_be_there(fresh):
    check = Check("test_nan")
    check.close("both", torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]))
    message = failure(lambda: check.close("only", torch.tensor([float("nan"), 1.0]), torch.tensor([0.5, 1.0])))
    assert message == "[test_nan/only] the result contains NaN. "


def test_close_says_shape_and_type_mistakes_and_appends_the_hint(fresh):
    check = Check("test_shape")
    message = failure(lambda: check.close("out", torch.zeros(2, 3), torch.zeros(3, 2), hint="transpose?"))
    assert message == "[test_shape/out] shape (2, 3) but expected (3, 2). transpose?"
    message = failure(lambda: check.close("out", {"a": 1}, torch.zeros(2)))
    assert message == "[test_shape/out] expected a tensor or array, got dict. "


def test_close_names_a_known_mistake_and_never_shows_the_expected_values(fresh):
    check = Check("test_mistake")
    expected = torch.tensor([0.123456, 0.654321])
    wrong = torch.tensor([0.9, 0.1])
    message = failure(lambda: check.close("w", wrong, expected, mistakes={"softmax over the wrong axis": wrong}))
    assert message == "[test_mistake/w] the result matches a known mistake: softmax over the wrong axis."
    message = failure(lambda: check.close("w", torch.tensor([0.8, 0.2]), expected, mistakes={"other": wrong}))
    assert "values differ" in message
    assert "0.123" not in message and "0.654" not in message  # what it should equal stays out of the message


def test_close_compares_booleans_exactly(fresh):
    check = Check("test_bool")
    check.close("mask", torch.tensor([True, False]), np.array([True, False]))
    assert "values differ" in failure(lambda: check.close("mask", torch.tensor([True, True]), [True, False]))
    assert "values differ" in failure(lambda: check.close("mask", torch.tensor([1.0, 0.0]), [True, False]))


# -- equal, true, raises ---------------------------------------------------------------


def test_equal_checks_shape_dtype_kind_and_every_value(fresh):
    check = Check("test_equal")
    check.equal("ids", torch.tensor([1, 2, 3]), np.array([1, 2, 3], dtype=np.int32))  # same kind, other width
    assert failure(lambda: check.equal("ids", torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))) == (
        "[test_equal/ids] dtype float32 but expected int64. "
    )
    assert failure(lambda: check.equal("ids", torch.tensor([1, 5, 7]), torch.tensor([1, 2, 3]))) == (
        "[test_equal/ids] 2 value(s) differ. "
    )
    assert "shape (2,) but expected (3,)" in failure(lambda: check.equal("ids", [1, 2], [1, 2, 3]))


def test_true_reads_tensors_as_all_and_fails_with_the_given_message(fresh):
    check = Check("test_true")
    check.true("all", torch.tensor([True, True]), "unused")
    check.true("plain", 1 == 1, "unused")
    assert failure(lambda: check.true("any", torch.tensor([True, False]), "a row sums to 2")) == (
        "[test_true/any] a row sums to 2"
    )
    assert fresh.parts["test_true"] == {"status": "failed", "message": "[test_true/any] a row sums to 2", "asserts": 3}


def test_raises_wants_the_error_type_and_a_message_that_says_what_is_wrong(fresh):
    check = Check("test_raises")

    def bad_heads():
        raise ValueError("embed_dim 10 is not divisible by num_heads 3")

    check.raises("heads", ValueError, bad_heads, match=r"10.*3")
    message = failure(lambda: check.raises("heads", ValueError, bad_heads, match="num_kv_heads"))
    assert "does not say what is wrong (expected to mention 'num_kv_heads')" in message
    message = failure(lambda: check.raises("heads", TypeError, bad_heads))
    assert (
        message.startswith("[test_raises/heads] raised ValueError (embed_dim 10") and "instead of TypeError" in message
    )
    assert failure(lambda: check.raises("heads", ValueError, lambda: None)) == (
        "[test_raises/heads] expected ValueError, but nothing was raised."
    )
    assert fresh.parts["test_raises"]["asserts"] == 4


def test_a_check_name_must_be_a_plain_key():
    with pytest.raises(ValueError, match="must match"):
        Check("test with spaces")
    with pytest.raises(ValueError, match="must match"):
        Check("x" * 81)


def test_a_failure_is_an_assertion_error_recorded_as_failed(fresh):
    check = Check("test_record")
    with pytest.raises(AssertionError):
        check.true("k", False, "wrong")
    assert fresh.parts["test_record"]["status"] == "failed"
    assert fresh.assert_count() == 1 and fresh.asserted()


# -- what a visible test prints in the learner's notebook ---------------------------------


@pytest.fixture
def shell(notebook) -> InteractiveShell:
    """A real IPython shell in this process (no kernel, no history file), its cells recording into the default."""
    config = Config()
    config.HistoryManager.enabled = False
    return InteractiveShell(config=config)


def test_in_a_notebook_each_cell_settles_its_parts_and_self_check_prints_them(shell, notebook, capsys):
    shell.run_cell("from autograder.workbook import Check\ncheck = Check('test_a')\ncheck.true('k', True, 'm')")
    shell.run_cell("check = Check('test_b')\ncheck.true('k', False, 'the mask is inverted')")
    shell.run_cell("check = Check('test_c')\nraise NotImplementedError()")
    shell.run_cell("check = Check('test_d')\ncheck.forbidden('k', ['softmax'], 'no softmax')")  # the grader's
    capsys.readouterr()
    workbook.self_check({"test_a": 1, "test_b": 2, "test_c": 1, "test_d": 1, "q_why": 2}, written=["q_why"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["test_a", "1", "✓", "passed"]
    assert lines[2].split() == ["test_b", "2", "✗", "failed"]
    assert lines[3] == "    [test_b/k] the mask is inverted"
    assert lines[4].split() == ["test_c", "1", "✗", "failed"]
    assert lines[5] == "    NotImplementedError: an answer cell this test uses is not implemented yet"
    assert lines[6].split()[:4] == ["test_d", "1", "·", "hidden"]
    assert lines[7].split()[:4] == ["q_why", "2", "✎", "written"]
    assert "Visible tests passed: 1 / 3 parts." in lines[-1]
    assert notebook.this_cell == []  # settled after each cell


def test_self_check_before_any_test_says_to_run_the_cells(notebook, capsys):
    workbook.self_check()
    assert capsys.readouterr().out.startswith("No test has run yet")


# -- the default context and a grader's ----------------------------------------------------


def test_the_default_context_is_the_notebooks_and_leaves_the_graders_checks_to_it(notebook):
    assert workbook.current_context() is notebook and notebook.hooks is None
    check = Check("test_default")
    check.forbidden("k", ["softmax"], "no softmax")  # judged by the grader: nothing counted here
    check.untouched("k", "changed its input")
    assert notebook.parts["test_default"]["asserts"] == 0 and notebook.found_forbidden() == []
    module = torch.nn.Linear(2, 2)
    copied = workbook.kernel_copy(module)
    assert copied is not module and torch.equal(copied.weight, module.weight)
    assert not workbook.fits_in_memory(lambda: None, 10, here=lambda fn: 11)  # measured here


def test_a_grading_context_scans_the_answers_and_records_what_it_found(notebook):
    calls = []

    def scanner(names, cells):
        calls.append((names, cells))
        return ["answer cell 'sdpa', line 3: softmax"] if "softmax" in names else []

    with workbook.checking(CheckContext(hooks(scanner=scanner))) as context:
        check = Check("test_rules")
        check.forbidden("ok", ["einsum"], "unused", cells=["mha"])
        message = failure(lambda: check.forbidden("sm", ["softmax"], "write the softmax yourself"))
    assert calls == [(["einsum"], ["mha"]), (["softmax"], None)]
    assert message == "[test_rules/sm] write the softmax yourself (answer cell 'sdpa', line 3: softmax)"
    assert context.found_forbidden() == ["answer cell 'sdpa', line 3: softmax"]
    assert context.assert_count() == 2
    assert "test_rules" not in notebook.parts and notebook.found_forbidden() == []  # nothing reached the default


def test_untouched_counts_only_the_mutations_seen_after_the_context_was_made():
    seen = [3]  # the grader's calls so far that found an input changed in place
    context = CheckContext(hooks(mutations=lambda: seen[0]))
    assert context.mutations_at_start == 3
    with workbook.checking(context):
        check = Check("test_inplace")
        check.untouched("before", "unused")  # 3 earlier ones belong to other tests
        seen[0] = 4
        assert (
            failure(lambda: check.untouched("after", "changed q in place")) == "[test_inplace/after] changed q in place"
        )
    assert context.parts["test_inplace"]["asserts"] == 2


def test_a_grading_context_decides_kernel_copies_and_memory():
    budgets = []
    grading = hooks(copier=lambda module: ("held", module), budget=lambda fn, budget: budgets.append(budget) or True)
    module = torch.nn.Linear(2, 2)
    with workbook.checking(CheckContext(grading)):
        assert workbook.kernel_copy(module) == ("held", module)
        assert workbook.fits_in_memory(lambda: None, 64, here=pytest.fail)  # never measured in this process
    assert budgets == [64]
    assert workbook.kernel_copy(module) is not module  # the default again after the block


# -- contexts do not leak ---------------------------------------------------------------------


def test_sequential_contexts_start_empty_and_the_default_comes_back(notebook):
    first, second = CheckContext(hooks()), CheckContext(hooks())
    with workbook.checking(first):
        Check("test_a").true("k", True, "m")
    assert workbook.current_context() is notebook
    with workbook.checking(second):
        assert workbook.current_context() is second
        assert not second.asserted()
        Check("test_b").true("k", True, "m")
    assert list(first.parts) == ["test_a"] and list(second.parts) == ["test_b"]
    assert notebook.parts == {} and workbook.current_context() is notebook


def test_a_nested_context_records_apart_and_gives_the_outer_one_back(fresh):
    inner = CheckContext(hooks(scanner=lambda names, cells: ["found"]))
    Check("test_outer").true("k", True, "m")
    with workbook.checking(inner):
        check = Check("test_inner")
        with pytest.raises(CheckFailure):
            check.forbidden("k", ["x"], "m")
    assert workbook.current_context() is fresh
    Check("test_outer2").true("k", True, "m")
    assert list(fresh.parts) == ["test_outer", "test_outer2"] and fresh.found_forbidden() == []
    assert list(inner.parts) == ["test_inner"] and inner.found_forbidden() == ["found"]


@pytest.mark.parametrize("error", [CheckFailure("a check failed"), RuntimeError("the test crashed"), SystemExit(3)])
def test_a_failure_inside_a_context_restores_the_previous_one(notebook, error):
    context = CheckContext(hooks())
    with pytest.raises(type(error)), workbook.checking(context):
        Check("test_crash").true("k", True, "m")
        raise error
    assert workbook.current_context() is notebook and notebook.hooks is None
    assert "test_crash" not in notebook.parts and context.asserted()


def test_threads_each_see_their_own_context_and_a_bare_thread_sees_the_default(notebook):
    """Hooks reach only the thread that installed them; two grading calls in two threads record apart."""
    step = threading.Barrier(2, timeout=30)
    contexts = {n: CheckContext(hooks(scanner=lambda names, cells, n=n: [f"found by {n}"])) for n in (1, 2)}
    errors = []

    def grade(n: int) -> None:
        try:
            with workbook.checking(contexts[n]):
                check = Check("test_same_name")
                step.wait()  # both contexts are installed at once
                for _ in range(n):
                    check.true("k", True, "m")
                step.wait()
                with pytest.raises(CheckFailure):
                    check.forbidden("k", ["x"], "m")
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=grade, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert [contexts[n].parts["test_same_name"]["asserts"] for n in (1, 2)] == [2, 3]
    assert [contexts[n].found_forbidden() for n in (1, 2)] == [["found by 1"], ["found by 2"]]
    seen = []
    with workbook.checking(CheckContext(hooks())):
        bare = threading.Thread(target=lambda: seen.append(workbook.current_context()))
        bare.start()
        bare.join(30)
    assert seen == [notebook] and notebook.parts == {}


# -- the grader installs one context per test cell ----------------------------------------


def _cell(source: str, grade_id: str, **nbgrader) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": grade_id, **nbgrader}
    return cell


def test_the_harness_gives_every_test_cell_a_fresh_context_and_restores_the_default(notebook):
    """Each test cell's checks are its own: a check, a finding or a failure never carries to the next cell."""
    source = nbformat.v4.new_notebook()
    source.cells = [
        _cell("from workbook import Check", "setup"),
        _cell("def sdpa(q):\n    return q.softmax(-1)\n", "sdpa", solution=True),
        _cell(
            "c = Check('test_rule')\nc.true('k', True, 'm')\nc.forbidden('f', ['softmax'], 'no softmax')",
            "t1",
            grade=True,
            points=1,
        ),
        _cell("c = Check('test_ok')\nc.true('k', True, 'm')", "t2", grade=True, points=1),
        _cell("c = Check('test_nothing')", "t3", grade=True, points=1),
        _cell("c = Check('test_fail')\nc.true('k', False, 'it is wrong')", "t4", grade=True, points=1),
    ]
    link = types.SimpleNamespace(mutations=0, memory_budget=None)  # never called: these cells read no learner name
    harness = Harness(source, {"sdpa": source.cells[1].source}, link, b"k" * 32, ("learner", "nb"))  # type: ignore[arg-type]
    tests = [cell for cell in source.cells if cell.metadata["nbgrader"].get("grade")]
    verdicts = [harness.run_test(cell) for cell in tests]
    assert [v.passed for v in verdicts] == [False, True, False, False]
    assert verdicts[0].flags and "softmax" in verdicts[0].flags[0]
    assert verdicts[1].flags == []  # the first cell's finding stayed in its own context
    assert verdicts[2].message == "the test checked nothing (an authoring error)"  # earlier checks not counted
    assert verdicts[3].message == "[test_fail/k] it is wrong"
    assert workbook.current_context() is notebook and notebook.parts == {}
