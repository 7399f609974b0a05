"""The kernel boundary's format, judged on the grader's side without a kernel: round trips and every limit."""

from __future__ import annotations

import base64

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograder.checks.callbacks import offered
from autograder.checks.encoding import _torch_class
from autograder.checks.link import remote_exception
from autograder.kernel import wire

LIMITS = wire.WireLimits(reply_bytes=2**16, job_bytes=2**18, arrays=8, ndim=4, callback_bytes=2**12)

arrays = st.dictionaries(
    st.text("abc", min_size=1, max_size=3),
    hnp.arrays(
        st.sampled_from([np.float32, np.float64, np.int64, np.uint8, np.bool_, np.complex64]),
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(arrays)
def test_binary_round_trip(values):
    meta, buffers = wire.pack(values)
    back = wire.unpack(meta, buffers, wire.Budget(LIMITS))
    assert back.keys() == values.keys()
    for key, array in values.items():
        assert back[key].dtype == array.dtype and back[key].shape == array.shape
        np.testing.assert_array_equal(back[key], array)


@settings(max_examples=100, deadline=None)
@given(arrays)
def test_text_round_trip(values):
    back = wire.unpack_text(wire.pack_text(values), wire.Budget(LIMITS))
    for key, array in values.items():
        np.testing.assert_array_equal(back[key], array)
        assert back[key].shape == array.shape


BAD = {
    "object dtype": ({"a": [0, "object", [1]]}, [b"\0" * 8]),
    "bfloat16 claimed": ({"a": [0, "bfloat16", [2]]}, [b"\0" * 4]),
    "shape larger than its buffer": ({"a": [0, "float32", [2**40]]}, [b"\0" * 16]),
    "buffer larger than its shape": ({"a": [0, "float32", [1]]}, [b"\0" * 16]),
    "negative dimension": ({"a": [0, "float32", [-1]]}, [b""]),
    "float dimension": ({"a": [0, "float32", [1.0]]}, [b"\0" * 4]),
    "too many dimensions": ({"a": [0, "uint8", [1] * 9]}, [b"\0"]),
    "missing buffer": ({"a": [3, "uint8", [1]]}, [b"\0"]),
    "too many arrays": ({f"a{i}": [0, "uint8", [1]] for i in range(9)}, [b"\0"]),
    "reply over its limit": ({"a": [0, "uint8", [2**16 + 1]]}, [b"\0" * (2**16 + 1)]),
    "not a description": ({"a": "float32"}, [b""]),
    "description not a dict": (["a"], [b""]),
}


@pytest.mark.parametrize("meta, buffers", BAD.values(), ids=BAD.keys())
def test_malformed_replies_are_refused_before_use(meta, buffers):
    with pytest.raises(wire.WireError):
        wire.unpack(meta, buffers, wire.Budget(LIMITS))


def test_a_jobs_replies_share_one_budget():
    budget, buffer = wire.Budget(LIMITS), [b"\0" * 2**16]
    for _ in range(4):
        wire.unpack({"a": [0, "uint8", [2**16]]}, buffer, budget)
    with pytest.raises(wire.WireError, match="replies of this notebook"):
        wire.unpack({"a": [0, "uint8", [2**16]]}, buffer, budget)


def test_text_arrays_must_be_base64():
    with pytest.raises(wire.WireError):
        wire.unpack_text({"a": ["uint8", [3], "not base64!"]}, wire.Budget(LIMITS))
    ok = base64.b64encode(b"abc").decode()
    assert wire.unpack_text({"a": ["uint8", [3], ok]}, wire.Budget(LIMITS))["a"].tolist() == [97, 98, 99]


def test_kernel_named_classes_are_never_imported():
    """A class name from the kernel resolves only to torch.nn's own public classes, and imports nothing."""
    import sys

    sys.modules.pop("torch.utils.model_dump", None)
    assert _torch_class("torch.utils.model_dump.__main__.X") is None
    assert "torch.utils.model_dump" not in sys.modules
    assert _torch_class("torch.nn.modules.linear.Linear") is torch.nn.Linear
    assert _torch_class("torch.nn.modules.linear._Private") is None
    assert _torch_class("os.system") is None


@pytest.mark.parametrize("builtin", ["SystemExit", "KeyboardInterrupt", "GeneratorExit", "BaseException", "?"])
def test_a_forged_exception_is_an_ordinary_error(builtin):
    exc = remote_exception({"type": builtin, "builtin": builtin, "message": "x"})
    assert isinstance(exc, Exception)


class FakeModel(torch.nn.Module):
    """A check's fake model: what the learner's code may reach of it."""

    d_model = 8

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(2, 2)
        self.vocab = 11

    def encode(self, src):
        return src

    def forward(self, x):
        return x


@pytest.mark.parametrize("name", ["forward", "d_model", "vocab"])
def test_a_fake_model_offers_its_forward_and_plain_data(name):
    assert offered(FakeModel(), name)


def test_a_check_lists_its_other_methods_to_offer_them():
    """A method the check wrote is offered only by name: its class may hold a reference that stays here."""
    listed = FakeModel()
    listed.wb_offer = ("encode",)
    assert not offered(FakeModel(), "encode") and offered(listed, "encode")


NOT_OFFERED = ["register_forward_hook", "register_forward_pre_hook", "get_submodule", "compile", "parameters",
               "state_dict", "load_state_dict", "apply", "to", "modules", "proj", "_modules", "__class__",
               "__globals__", "__init__", "__reduce__", "train", "zero_grad", "named_parameters", "__dict__"]  # fmt: skip


@pytest.mark.parametrize("name", NOT_OFFERED)
def test_a_fake_model_offers_no_hook_compile_or_submodule(name):
    assert not offered(FakeModel(), name)


def test_a_check_may_offer_more_by_name():
    model = FakeModel()
    model.wb_offer = ("parameters",)
    assert offered(model, "parameters") and not offered(model, "state_dict")
