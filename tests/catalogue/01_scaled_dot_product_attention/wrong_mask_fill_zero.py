"""Blocked scores set to 0 instead of -inf (they still get weight)."""
# expect: set to 0 instead of -inf
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
