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

import base64
import binascii
import math

import numpy as np
import torch

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

ARRAY_DTYPES = frozenset(
    {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"}
)
TENSOR_DTYPES = ARRAY_DTYPES | {"bfloat16"}  # a bfloat16 tensor travels as a float32 array
NARROW = {"bfloat16", "float16"}  # sent as float32 (numpy has no bfloat16)
DEVICES = ("cpu", "cuda", "mps")
MAX_DEPTH = 30


class FormatError(ValueError):
    """A message breaks the format or one of its limits."""


# --- arrays ---------------------------------------------------------------------------------


def pack(arrays: dict[str, np.ndarray]) -> tuple[dict, list[bytes]]:
    """Arrays -> a JSON description ({key: [buffer index, dtype, shape]}) and their buffers."""
    meta, buffers = {}, []
    for key, array in arrays.items():
        array = np.asarray(array, order="C")  # (keeps a 0-d array 0-d)
        meta[key] = [len(buffers), str(array.dtype), list(array.shape)]
        buffers.append(array.tobytes())
    return meta, buffers


def _shape(dtype: object, shape: object, ndim: int, most: int) -> tuple[np.dtype, tuple[int, ...], int]:
    """A checked dtype, shape and byte count for one array description."""
    if not isinstance(dtype, str) or dtype not in ARRAY_DTYPES:
        raise FormatError(f"an array has a dtype that is not allowed ({str(dtype)[:40]!r})")
    if not isinstance(shape, list) or len(shape) > ndim or not all(type(d) is int and 0 <= d <= most for d in shape):
        raise FormatError("an array has a malformed shape")
    kind = np.dtype(dtype)
    return kind, tuple(shape), math.prod(shape) * kind.itemsize


def unpack(meta: object, buffers: list, max_arrays: int, ndim: int, most: int) -> dict[str, np.ndarray]:
    """Arrays, each checked against its description (at most `most` bytes in a dimension), then copied."""
    if not isinstance(meta, dict) or len(meta) > max_arrays or len(buffers) > max_arrays:
        raise FormatError("the arrays are malformed or too many")
    arrays = {}
    for key, entry in meta.items():
        if not isinstance(entry, list) or len(entry) != 3 or type(entry[0]) is not int:
            raise FormatError("an array description is malformed")
        kind, shape, size = _shape(entry[1], entry[2], ndim, most)
        if not 0 <= entry[0] < len(buffers) or len(memoryview(buffers[entry[0]])) != size:
            raise FormatError("an array does not match its buffer")
        arrays[str(key)] = np.frombuffer(buffers[entry[0]], dtype=kind).reshape(shape).copy()
    return arrays


def pack_text(arrays: dict[str, np.ndarray]) -> dict:
    """Arrays as JSON-safe text ({key: [dtype, shape, base64]}), for stdin, which has no binary buffers."""
    meta, buffers = pack(arrays)
    return {key: [dtype, shape, base64.b64encode(buffers[i]).decode()] for key, (i, dtype, shape) in meta.items()}


def text_buffers(meta: object, max_arrays: int) -> tuple[dict, list[bytes]]:
    """Arrays sent as text -> the binary description and buffers `unpack` reads."""
    if not isinstance(meta, dict) or len(meta) > max_arrays:
        raise FormatError("the arrays are malformed or too many")
    described, buffers = {}, []
    for key, entry in meta.items():
        if not isinstance(entry, list) or len(entry) != 3 or not isinstance(entry[2], str):
            raise FormatError("an array description is malformed")
        try:
            buffers.append(base64.b64decode(entry[2], validate=True))
        except (binascii.Error, ValueError):
            raise FormatError("an array is not base64") from None
        described[key] = [len(buffers) - 1, entry[0], entry[1]]
    return described, buffers


# --- values ---------------------------------------------------------------------------------


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
        if type(value) in (tuple, list):
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
