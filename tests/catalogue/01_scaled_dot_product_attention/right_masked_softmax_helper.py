"""A separate masked_softmax helper with where() and a nan_to_num clean-up, called from the main function."""
# %% answer sdpa
def masked_softmax(scores, mask=None, dim=-1):
    """Softmax over `dim` where mask is True; rows with nothing allowed become zeros."""
    if mask is None:
        return F.softmax(scores, dim=dim)
    scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    return torch.nan_to_num(F.softmax(scores, dim=dim), nan=0.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    d_k = k.shape[-1]
    weights = masked_softmax(torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d_k)), mask)
    output = torch.matmul(weights, v)
    return output, weights
