"""Arrays across the kernel boundary: a dtype from an allow-list, a shape, exactly that many bytes.

Shipped (see codec.py): imports only the standard library and numpy, so that the grader's
own process, which never imports torch, can check what the kernel's relay passes it.
"""

from __future__ import annotations

import base64
import binascii
import math

import numpy as np

ARRAY_DTYPES = frozenset(
    {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"}
)


class FormatError(ValueError):
    """A message breaks the format or one of its limits."""


def pack(arrays: dict[str, np.ndarray]) -> tuple[dict, list[bytes]]:
    """Arrays -> a JSON description ({key: [buffer index, dtype, shape]}) and their buffers."""
    meta: dict[str, list] = {}
    buffers: list[bytes] = []
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
