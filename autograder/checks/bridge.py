"""The autograd bridge: gradients across the process boundary, from a check's backward() to the kernel and back."""

from __future__ import annotations

from typing import Any

import torch

from autograder.checks.encoding import Encoder
from autograder.checks.proxy import Link
from autograder.shipped.servant import tensors_in


class _Bridge(torch.autograd.Function):
    """Gradients across the process boundary: backward asks the kernel for its input grads."""

    @staticmethod
    def forward(ctx, link, call_id, n_out, *tensors):
        ctx.link, ctx.call_id, ctx.n_in, ctx.n_out = link, call_id, len(tensors) - n_out, n_out
        return tuple(t.detach().clone() for t in tensors[ctx.n_in :])

    @staticmethod
    def backward(ctx, *grads):
        enc = Encoder()
        req = {"op": "backward", "call": ctx.call_id, "grads": enc.encode(list(grads))}
        got = ctx.link.request(req, enc.arrays)
        got = list(got) + [None] * (ctx.n_in - len(got))
        return (None, None, None, *got[: ctx.n_in], *([None] * ctx.n_out))


def with_grad(link: Link, call_id: int, inputs: list, result: Any) -> Any:
    """Reattach the kernel's outputs to the check's inputs, so .backward() reaches the kernel."""
    outs = [t for t in tensors_in(result) if getattr(t, "_wb_grad", False)]
    if not outs:
        return result
    linked = iter(_Bridge.apply(link, call_id, len(outs), *inputs, *outs))
    swap = {id(t): next(linked) for t in outs}

    def rebuild(value):
        if isinstance(value, torch.Tensor):
            return swap.get(id(value), value)
        if isinstance(value, (tuple, list)):
            return type(value)(rebuild(x) for x in value)
        if isinstance(value, dict):
            return {k: rebuild(v) for k, v in value.items()}
        return value

    return rebuild(result)
