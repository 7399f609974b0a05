"""Correct, but warns on stderr at every call (a UserWarning must not cost points)."""
# %% answer sdpa
import sys
import warnings


def scaled_dot_product_attention(q, k, v, mask=None):
    warnings.warn("this implementation is slow", UserWarning)
    warnings.simplefilter("always")
    print("debug: computing attention", file=sys.stderr)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
    return weights @ v, weights
