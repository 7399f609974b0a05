"""The frames of one message across the kernel boundary: arrays as raw buffers, checked before use.

Requests and replies travel in-band, as Jupyter comm messages whose arrays are binary
buffers (the grader's calls) and as stdin exchanges whose arrays are base64 text (the
learner's calls back to a check's own objects). Nothing is compressed and nothing is
pickled: an array is a dtype from an allow-list, a shape and exactly that many bytes, so
its size is known before anything is allocated for it. Every limit is checked here, on
the grader's side, before a reply is decoded; the kernel's side of the format is in
servant.py (which may import nothing of the grader's).
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass

import numpy as np

DTYPES = frozenset(
    {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"}
)


class WireError(ValueError):
    """A message from the kernel breaks the format or a limit (the learner's code sent it)."""


@dataclass(frozen=True)
class WireLimits:
    """What one reply, and one job in all, may bring into the grader."""

    reply_bytes: int = 32 * 2**20  # the arrays of one reply (the largest check's reply: 20 MB)
    job_bytes: int = 512 * 2**20  # the arrays of every reply of one job (a reference notebook: 32 MB at most)
    arrays: int = 4096  # arrays in one reply
    ndim: int = 8
    callback_bytes: int = 8 * 2**20  # one call back into a check's own object (its text, base64 included)
    message_bytes: int = 40 * 2**20  # one frame of any message on any channel (ZeroMQ drops larger ones)
    queued_messages: int = 64  # messages ZeroMQ may hold unread per channel (outputs, most of them small)
    small_message_bytes: int = 2 * 2**20  # larger: only the one reply to a pending request (channel_relay)
    relay_memory_bytes: int = 128 * 2**20  # the channel relay's address space (autograder/channel_relay.py)


class Budget:
    """The bytes a job's replies may still bring in."""

    def __init__(self, limits: WireLimits) -> None:
        self.limits, self.left = limits, limits.job_bytes

    def spend(self, n: int) -> None:
        if n > self.limits.reply_bytes:
            raise WireError(f"a reply of {n} bytes is over the {self.limits.reply_bytes} bytes one reply may bring")
        if n > self.left:
            raise WireError(f"the replies of this notebook went over the {self.limits.job_bytes} bytes allowed")
        self.left -= n


def pack(arrays: dict[str, np.ndarray]) -> tuple[dict, list[bytes]]:
    """Arrays -> a JSON description and their buffers (the grader's side and the kernel's agree on this)."""
    meta, buffers = {}, []
    for key, array in arrays.items():
        array = np.asarray(array, order="C")  # (keeps a 0-d array 0-d)
        meta[key] = [len(buffers), str(array.dtype), list(array.shape)]
        buffers.append(array.tobytes())
    return meta, buffers


def _shape(dtype: object, shape: object, limits: WireLimits) -> tuple[np.dtype, tuple[int, ...], int]:
    """A checked dtype, shape and byte count for one array description."""
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise WireError(f"an array has a dtype that is not allowed ({str(dtype)[:40]!r})")
    if not isinstance(shape, list) or len(shape) > limits.ndim:
        raise WireError("an array has a malformed shape")
    if not all(type(d) is int and 0 <= d <= limits.reply_bytes for d in shape):
        raise WireError("an array has a malformed shape")
    kind = np.dtype(dtype)
    return kind, tuple(shape), math.prod(shape) * kind.itemsize


def unpack(meta: object, buffers: list, budget: Budget) -> dict[str, np.ndarray]:
    """A reply's arrays, each checked against its description and the job's budget, then copied."""
    if not isinstance(meta, dict) or len(meta) > budget.limits.arrays:
        raise WireError("a reply's arrays are malformed or too many")
    if len(buffers) > budget.limits.arrays:
        raise WireError("a reply carries too many buffers")
    budget.spend(sum(len(memoryview(b)) for b in buffers))
    arrays = {}
    for key, entry in meta.items():
        if not isinstance(entry, list) or len(entry) != 3 or type(entry[0]) is not int:
            raise WireError("a reply's array description is malformed")
        kind, shape, size = _shape(entry[1], entry[2], budget.limits)
        if not 0 <= entry[0] < len(buffers) or len(memoryview(buffers[entry[0]])) != size:
            raise WireError("a reply's array does not match its buffer")
        arrays[str(key)] = np.frombuffer(buffers[entry[0]], dtype=kind).reshape(shape).copy()
    return arrays


def pack_text(arrays: dict[str, np.ndarray]) -> dict:
    """Arrays as JSON-safe text (base64), for the stdin exchange that carries no binary buffers."""
    meta, buffers = pack(arrays)
    return {key: [dtype, shape, base64.b64encode(buffers[i]).decode()] for key, (i, dtype, shape) in meta.items()}


def unpack_text(meta: object, budget: Budget) -> dict[str, np.ndarray]:
    """Arrays sent as text (a callback's inputs), with the same checks as binary ones."""
    if not isinstance(meta, dict) or len(meta) > budget.limits.arrays:
        raise WireError("a callback's arrays are malformed or too many")
    described, buffers = {}, []
    for key, entry in meta.items():
        if not isinstance(entry, list) or len(entry) != 3 or not isinstance(entry[2], str):
            raise WireError("a callback's array description is malformed")
        try:
            buffers.append(base64.b64decode(entry[2], validate=True))
        except (binascii.Error, ValueError):
            raise WireError("a callback's array is not base64") from None
        described[key] = [len(buffers) - 1, entry[0], entry[1]]
    return unpack(described, buffers, budget)
