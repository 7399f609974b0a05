"""The frames of one message across the kernel boundary: arrays as raw buffers, checked before use.

Requests and replies travel in-band, as Jupyter comm messages whose arrays are binary
buffers (the grader's calls) and as stdin exchanges whose arrays are base64 text (the
learner's calls back to a check's own objects). Nothing is compressed and nothing is
pickled: an array is a dtype from an allow-list, a shape and exactly that many bytes, so
its size is known before anything is allocated for it. The format is defined once, for
both sides, in shipped/codec.py; the limits are here, checked on the grader's side before
a reply is decoded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.shipped import arrays as codec

DTYPES = codec.ARRAY_DTYPES
WireError = codec.FormatError  # a message from the kernel breaks the format or a limit (the learner's code sent it)
pack, pack_text = codec.pack, codec.pack_text


@dataclass(frozen=True, kw_only=True)
class WireLimits:
    """What one reply, and one job in all, may bring into the grader."""

    reply_bytes: int = 32 * 2**20  # the arrays of one reply (the largest check's reply: 20 MB)
    job_bytes: int = 512 * 2**20  # the arrays of every reply of one job (a reference notebook: 32 MB at most)
    arrays: int = 4096  # arrays in one reply
    ndim: int = 8
    callback_bytes: int = 8 * 2**20  # one call back into a check's own object (its text, base64 included)
    message_bytes: int = 40 * 2**20  # one frame of any message on any channel (ZeroMQ drops larger ones)
    queued_messages: int = 16  # messages ZeroMQ may hold unread per channel and side (outputs: small)
    small_message_bytes: int = 2**20  # larger: only the one reply to a pending request (channel_relay)
    relay_memory_bytes: int = 128 * 2**20  # the channel relay's address space (autograder/shipped/channel_relay.py)


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


def unpack(meta: object, buffers: list, budget: Budget) -> dict[str, np.ndarray]:
    """A reply's arrays, each checked against its description and the job's budget, then copied."""
    if len(buffers) > budget.limits.arrays:
        raise WireError("a reply carries too many buffers")
    budget.spend(sum(len(memoryview(b)) for b in buffers))
    limits = budget.limits
    return codec.unpack(meta, buffers, limits.arrays, limits.ndim, limits.reply_bytes)


def unpack_text(meta: object, budget: Budget) -> dict[str, np.ndarray]:
    """Arrays sent as text (a callback's inputs), with the same checks as binary ones."""
    described, buffers = codec.text_buffers(meta, budget.limits.arrays)
    return unpack(described, buffers, budget)
