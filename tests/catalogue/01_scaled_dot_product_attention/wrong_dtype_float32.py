"""Everything cast to float32: float64 inputs lose their dtype and precision."""
# expect: no .float()
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    q, k, v = q.float(), k.float(), v.float()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
    return weights @ v, weights
