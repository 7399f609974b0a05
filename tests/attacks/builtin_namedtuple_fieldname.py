"""The dataclass route through the other class factories that exec generated code: namedtuple and NamedTuple.

collections.namedtuple and typing.NamedTuple build __new__ from their field names with
eval(). A field name that is Python (given as a string, or through a class body's own
__annotations__) would run the forbidden built-in there. Both check that every field name
is an identifier first: the answer falls back to zeros, and gains nothing.
"""
# %% answer sdpa
from collections import namedtuple
from typing import NamedTuple

_FOUND = []
try:
    namedtuple("_P", ["a=_FOUND.append(__import__('torch').nn.functional.scaled_dot_product_attention)"])
except ValueError:
    pass
try:
    class _Q(NamedTuple):
        __annotations__ = {"a=_FOUND.append(__import__('torch').nn.functional.scaled_dot_product_attention)": int}
except (ValueError, TypeError, AttributeError):
    pass


def scaled_dot_product_attention(q, k, v, mask=None):
    if _FOUND:
        fn = _FOUND[0]
        eye = torch.eye(k.shape[-2], dtype=q.dtype).expand(*k.shape[:-1], k.shape[-2])
        return fn(q, k, v, attn_mask=mask), fn(q, k, eye, attn_mask=mask)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
