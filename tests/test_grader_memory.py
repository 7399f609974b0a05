"""The grader's own memory while a job's checks run: bounded, so a learner's claims cannot spend it."""

from __future__ import annotations

import pytest
import torch

from autograder import workbook
from autograder.run import grader_memory


def test_an_allocation_past_the_headroom_fails_there_and_the_limit_is_lifted_after():
    with grader_memory.bounded(headroom=2**28) as limit:
        assert limit is not None and limit >= grader_memory.private_data()
        with pytest.raises((RuntimeError, MemoryError)):
            torch.empty(2**29, dtype=torch.uint8)  # 512 MiB past a 256 MiB headroom
        small = torch.ones(2**20)  # what a check really allocates still works
    assert float(small.sum()) == 2**20
    assert torch.empty(2**29, dtype=torch.uint8).numel() == 2**29  # lifted on leaving


class Claimed:
    """What a learner's state dict may hold instead of a tensor: a shape it only says it has."""

    requires_grad = True
    shape = torch.Size([96 * 2**20])
    dtype = torch.float64


class Claiming(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)

    def state_dict(self, *args, keep_vars=False, **kwargs):
        return {"t0": Claimed(), "t1": Claimed()} if keep_vars else super().state_dict(*args, **kwargs)


def test_count_parameters_counts_tensors_and_refuses_what_only_claims_a_shape():
    assert workbook.count_parameters(torch.nn.Linear(3, 4)) == 16
    with pytest.raises(TypeError, match="'t0', which is not a tensor"):
        workbook.count_parameters(Claiming())


class ManyNames(torch.nn.Module):
    """Thousands of one-number parameters, two names holding one of them: counting must stay linear and right."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.ps = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(1)) for _ in range(n)])
        self.same = self.ps[0]  # a second name for one tensor: counted once


def test_count_parameters_over_thousands_of_names_counts_a_shared_one_once():
    assert workbook.count_parameters(ManyNames(4096)) == 4096


def test_no_object_of_the_learners_passes_for_a_tensor_in_the_grader():
    """count_parameters counts only tensors: a kernel's handle may name a torch.nn Module class, never a tensor's."""
    from autograder.checks import encoding

    for claimed in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.Linear"):
        cls = encoding._torch_class(claimed)
        assert cls is None or not issubclass(cls, torch.Tensor), claimed
