"""Returns a NamedTuple (output, weights) and uses torch.einsum with a string constant."""
# %% answer sdpa
from typing import NamedTuple


class AttentionResult(NamedTuple):
    output: torch.Tensor  # (..., L, d_v)
    weights: torch.Tensor  # (..., L, S)


SCORES = "...qd,...kd->...qk"


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v; returns AttentionResult(output, weights), which unpacks like a tuple."""
    scores = torch.einsum(SCORES, q, k).div(math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = scores.softmax(dim=-1)
    if mask is not None:
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros((), dtype=weights.dtype))
    return AttentionResult(weights @ v, weights)
