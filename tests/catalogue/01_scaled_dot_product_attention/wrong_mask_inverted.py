"""The mask read as True = blocked (nn.MultiheadAttention's convention)."""
# expect: the mask is inverted
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(mask.all(-1, keepdim=True), 0.0)
    return weights @ v, weights
