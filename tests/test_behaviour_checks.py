"""The helpers that judge a learner's object by what it does (autograder.workbook), in a notebook's own process."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from autograder import workbook


def test_a_shared_tensor_is_counted_once_and_nothing_else_is_merged():
    model = nn.Sequential(nn.Embedding(40, 16), nn.LayerNorm(16), nn.LayerNorm(16), nn.Linear(16, 40))
    assert workbook.count_parameters(model) == sum(p.numel() for p in model.parameters())  # equal ones stay apart
    model[3].weight = model[0].weight  # tied: one 40 x 16 matrix
    assert workbook.count_parameters(model) == 40 * 16 + 4 * 16 + 40


def test_counting_leaves_the_values_and_counts_only_what_learns():
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.BatchNorm1d(4))
    before = {name: value.clone() for name, value in model.state_dict().items()}
    assert workbook.count_parameters(model) == 2 * (16 + 4) + 2 * 4  # BatchNorm's running stats are buffers
    assert all(torch.equal(before[name], value) for name, value in model.state_dict().items())


def test_a_module_that_hides_a_parameter_from_parameters_is_counted_from_its_state_dict():
    class Hiding(nn.Module):
        def __init__(self):
            super().__init__()
            self.seen, self.hidden = nn.Linear(3, 3), nn.Linear(3, 3)

        def parameters(self, recurse=True):
            return self.seen.parameters()

    assert workbook.count_parameters(Hiding()) == 24


def test_in_a_notebook_the_kernel_copy_is_a_deep_copy_and_memory_is_measured_there():
    oracle = nn.Linear(2, 2)
    copy = workbook.kernel_copy(oracle)
    assert copy is not oracle and copy.weight is not oracle.weight and torch.equal(copy.weight, oracle.weight)
    assert workbook.fits_in_memory(lambda: None, 10, here=lambda fn: 10)
    assert not workbook.fits_in_memory(lambda: None, 10, here=lambda fn: 11)


def test_under_grading_the_hooks_decide():
    calls = []
    hooks = workbook.GraderHooks(
        scanner=lambda names, cells: [],
        mutations=lambda: 0,
        kernel_copier=lambda module: "held",
        memory_budget=lambda fn, budget: calls.append(budget) or False,
    )
    with workbook.checking(workbook.CheckContext(hooks)):
        assert not workbook.fits_in_memory(lambda: None, 10, here=pytest.fail)  # never measured in this process
        assert workbook.kernel_copy(nn.Linear(2, 2)) == "held"
    assert calls == [10]


def test_measured_call_returns_the_measured_calls_own_output():
    """In a notebook and under grading alike, the output compared is the one of the call that was measured."""
    calls = []

    def here(fn):
        fn()
        return 11

    fits, out = workbook.measured_call(lambda: calls.append(1) or len(calls), 10, here)
    assert (fits, out, calls) == (False, 1, [1])  # one call: measured, and its output kept
    hooks = workbook.GraderHooks(
        scanner=lambda names, cells: [],
        mutations=lambda: 0,
        kernel_copier=lambda module: "held",
        memory_budget=lambda fn, budget: fn() == "from the copy",
    )
    with workbook.checking(workbook.CheckContext(hooks)):
        assert workbook.measured_call(lambda: "from the copy", 10, here=pytest.fail) == (True, "from the copy")
        assert workbook.measured_call(lambda: None, 10, here=pytest.fail) == (False, None)
