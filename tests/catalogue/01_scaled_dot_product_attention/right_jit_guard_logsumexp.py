"""Shape checks under an `if not torch.jit.is_scripting()` guard; softmax written as exp(s - logsumexp(s))."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    if not torch.jit.is_scripting():
        assert q.shape[-1] == k.shape[-1], f"q and k need the same d_k, got {q.shape[-1]} and {k.shape[-1]}"
        assert k.shape[-2] == v.shape[-2], "k and v need the same number of positions"
    scores = q @ k.mT / math.sqrt(k.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
        empty = torch.logical_not(mask.any(-1, keepdim=True))
        # an empty row has only -inf: give it a harmless score of 0 and zero its weights afterwards
        scores = scores.masked_fill(empty, 0.0)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    if mask is not None:
        weights = weights.masked_fill(empty, 0.0)
    return weights @ v, weights
