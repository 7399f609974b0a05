"""The one format of values across the kernel boundary, for both sides of it.

A value travels as JSON whose non-plain parts are tagged nodes ({"t": TAG, ...}) and whose
arrays travel beside it: as raw buffers in a comm message, or as base64 text on stdin. An
array is a dtype from an allow-list, a shape and exactly that many bytes, so its size is
known before anything is allocated for it; nothing is compressed and nothing is pickled.

Shipped: this file is imported by the grader and sent, as source, to the learner's kernel
(autograder.shipped.boot). It imports only the standard library, numpy and torch, and
nothing of the grader's. The grader and the servant subclass `Encoder` and `Decoder` for
what only one side has (proxies, callbacks, handles); the tags and fields are defined here.
"""

from __future__ import annotations

import numpy as np
import torch

from .arrays import ARRAY_DTYPES, FormatError, pack, pack_text, text_buffers, unpack  # noqa: F401 - the whole format

# tags ("t") of a node
FLOAT, TENSOR, NDARRAY, TUPLE, LIST, DICT = "float", "tensor", "ndarray", "tuple", "list", "dict"
SIZE, DTYPE, DEVICE, SLICE, GENERATOR = "size", "dtype", "device", "slice", "generator"
REF, CALLBACK, OBJECT = "ref", "callback", "object"  # the learner's object, the check's object, a torch module
TAGS = frozenset(
    {FLOAT, TENSOR, NDARRAY, TUPLE, LIST, DICT, SIZE, DTYPE, DEVICE, SLICE, GENERATOR, REF, CALLBACK, OBJECT}
)

# fields of a node
TAG, VALUE, KEYS, ARRAY, GRAD_ARRAY = "t", "v", "k", "a", "g"
KIND, REQUIRES_GRAD, HAS_HISTORY, ON_DEVICE = "dtype", "grad", "fn", "device"
IDENT, TYPE_NAME, IS_MODULE, IS_CALLABLE, TORCH_CLASS = "id", "type", "module", "call", "torch_class"

TENSOR_DTYPES = ARRAY_DTYPES | {"bfloat16"}  # a bfloat16 tensor travels as a float32 array
NARROW = {"bfloat16", "float16"}  # sent as float32 (numpy has no bfloat16)
DEVICES = ("cpu", "cuda", "mps")
MAX_DEPTH = 30


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


class Encoder:
    """Values -> tagged JSON, their arrays gathered in `self.arrays` (copies: the sender keeps its own)."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, array: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.array(array, copy=True, order="C")  # keeps 0-d arrays 0-d
        return key

    def special(self, value: object) -> dict | None:
        """A node for what only this side sends (checked first); None: not one of those."""
        return None

    def other(self, value: object) -> object:
        """A node for anything the format has no tag for."""
        raise TypeError(f"a {type(value).__name__} cannot cross the kernel boundary")

    def encode(self, value: object, depth: int = 0) -> object:
        if depth > MAX_DEPTH:
            raise FormatError("the value is nested too deeply")
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return {TAG: FLOAT, VALUE: repr(value)}
        node = self.special(value)
        if node is not None:
            return node
        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if isinstance(value, np.ndarray) and value.dtype != object:
            return {TAG: NDARRAY, ARRAY: self.array(value)}
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return self.encode(value.item(), depth + 1)
        return self.small(value, depth)

    def small(self, value: object, depth: int) -> object:
        """Sizes, dtypes, devices, slices, generators and exact tuples, lists and dicts."""
        if isinstance(value, torch.Size):
            return {TAG: SIZE, VALUE: list(value)}
        if isinstance(value, torch.dtype):
            return {TAG: DTYPE, VALUE: dtype_name(value)}
        if isinstance(value, torch.device):
            return {TAG: DEVICE, VALUE: str(value)}
        if isinstance(value, torch.Generator):  # a copy: the receiver's draws never move the sender's
            return {TAG: GENERATOR, ARRAY: self.array(value.get_state().numpy())}
        if type(value) is slice:
            return {TAG: SLICE, VALUE: [self.encode(x, depth + 1) for x in (value.start, value.stop, value.step)]}
        if type(value) is tuple or type(value) is list:
            return {TAG: type(value).__name__, VALUE: [self.encode(x, depth + 1) for x in value]}
        if type(value) is dict and all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
            return {TAG: DICT, KEYS: list(value), VALUE: [self.encode(v, depth + 1) for v in value.values()]}
        return self.other(value)

    def tensor(self, value: torch.Tensor) -> dict:
        """A tensor: its values on the CPU, dtype, whether it needs grad and has a history, and its grad."""
        dtype = dtype_name(value.dtype)
        data = value.detach().cpu().resolve_conj().resolve_neg()
        node = {
            TAG: TENSOR,
            ARRAY: self.array((data.float() if dtype in NARROW else data).numpy()),
            KIND: dtype,
            REQUIRES_GRAD: bool(value.requires_grad),
            HAS_HISTORY: value.grad_fn is not None,
            ON_DEVICE: value.device.type,
        }
        if value.is_leaf and value.grad is not None:  # a parameter's gradient travels with it
            grad = value.grad.detach().cpu()
            node[GRAD_ARRAY] = self.array((grad.float() if dtype in NARROW else grad).numpy())
        return node


class Decoder:
    """Tagged JSON + arrays -> values; anything unexpected is a FormatError."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays

    def array(self, key: object) -> np.ndarray:
        array = self.arrays.get(key) if isinstance(key, str) else None
        if array is None or array.dtype == object:
            raise FormatError("a node names an array that was not sent")
        return array.copy()

    def decode(self, node: object, depth: int = 0) -> object:
        if depth > MAX_DEPTH:
            raise FormatError("the value is nested too deeply")
        if node is None or isinstance(node, (bool, int, str)):
            return node
        if not isinstance(node, dict) or node.get(TAG) not in TAGS:
            raise FormatError(f"an unknown node ({str(node)[:40]!r})")
        tag = node[TAG]
        if tag == FLOAT:
            return float(str(node.get(VALUE)))
        if tag == TENSOR:
            return self.tensor(node)
        if tag == NDARRAY:
            return self.array(node.get(ARRAY))
        if tag in (TUPLE, LIST, DICT, SLICE):
            return self.container(tag, node, depth)
        if tag == GENERATOR:
            gen = torch.Generator()
            gen.set_state(torch.from_numpy(self.array(node.get(ARRAY))))
            return gen
        return self.small(tag, node)

    def container(self, tag: str, node: dict, depth: int) -> object:
        items = node.get(VALUE)
        if not isinstance(items, list):
            raise FormatError(f"a malformed {tag}")
        values = [self.decode(x, depth + 1) for x in items]
        if tag == DICT:
            keys = node.get(KEYS)
            if not isinstance(keys, list) or len(keys) != len(values):
                raise FormatError("a malformed dict")
            if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in keys):
                raise FormatError("a malformed dict")
            return dict(zip(keys, values, strict=True))
        if tag == SLICE:
            if len(values) != 3 or not all(v is None or type(v) is int for v in values):
                raise FormatError("a malformed slice")
            return slice(*values)
        return tuple(values) if tag == TUPLE else values

    def small(self, tag: str, node: dict) -> object:
        value = node.get(VALUE)
        if tag == SIZE and isinstance(value, list) and all(type(x) is int and x >= 0 for x in value):
            return torch.Size(value)
        if tag == DTYPE and value in TENSOR_DTYPES:
            return getattr(torch, value)
        if tag == DEVICE and isinstance(value, str):
            kind, _, index = value.partition(":")
            if kind in DEVICES and (not index or index.isdigit()) and len(index) < 4:
                return torch.device(value)
            return torch.device("cpu")
        if tag in (REF, CALLBACK, OBJECT):
            return self.special(tag, node)
        raise FormatError(f"a malformed {tag}")

    def special(self, tag: str, node: dict) -> object:
        """What only this side receives: handles, callbacks, modules."""
        raise FormatError(f"a {tag} is not accepted here")

    def tensor(self, node: dict) -> torch.Tensor:
        dtype = node.get(KIND)
        if dtype not in TENSOR_DTYPES:
            raise FormatError(f"a tensor has an unknown dtype {str(dtype)[:40]!r}")
        tensor = torch.from_numpy(self.array(node.get(ARRAY))).to(getattr(torch, dtype))
        grad = None
        if GRAD_ARRAY in node:
            grad = torch.from_numpy(self.array(node.get(GRAD_ARRAY))).to(getattr(torch, dtype))
        return self.attach(tensor, node, grad if grad is not None and grad.shape == tensor.shape else None)

    def attach(self, tensor: torch.Tensor, node: dict, grad: torch.Tensor | None) -> torch.Tensor:
        """A received tensor as the sender had it: requiring grad, with its gradient."""
        if node.get(REQUIRES_GRAD) is True:
            tensor.requires_grad_(True)
        if grad is not None:
            tensor.grad = grad
        return tensor
