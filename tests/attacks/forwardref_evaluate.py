"""Evaluate the forbidden built-in from a string through typing's ForwardRef, reached by a private name.

`typing.List["<expr>"] == typing.List[G()]` hands the ForwardRef to G.__eq__; its `_evaluate`
evals the string. G's class body binds `_evaluate`, which made the scan take `found._evaluate`
for the answer's own attribute (11 of 14, no flag). A private name now counts as the answer's
own only as `self._name` in its class's methods: this is flagged and the rule's points withheld.
"""
# withheld: test_dtype_grad
# %% answer sdpa
import math
import typing


class G:
    _evaluate = None
    found = None

    def __eq__(self, other):
        G.found = other
        return True


_ok = typing.List["__import__('torch').nn.functional.scaled_dot_product_attention"] == typing.List[G()]
fast = G.found._evaluate(None, None, frozenset())


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        mask = mask.to(torch.bool)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.nan_to_num(fast(q, k, v, attn_mask=mask), nan=0.0), weights
