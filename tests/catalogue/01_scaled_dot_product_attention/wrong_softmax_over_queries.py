"""Softmax over the queries (dim=-2) instead of the keys."""
# expect: softmax over the queries
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    weights = torch.nan_to_num(weights)
    return weights @ v, weights
