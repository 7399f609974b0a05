"""Mask applied to the weights after the softmax, without renormalising."""
# expect: masked after the softmax without renormalising
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights
