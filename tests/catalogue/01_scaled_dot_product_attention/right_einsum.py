"""einsum formulation, masked_fill with -inf and where() for empty rows."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("...ld,...sd->...ls", q, k) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = scores.softmax(-1)
    weights = torch.where(torch.isnan(weights), torch.zeros_like(weights), weights)
    return torch.einsum("...ls,...sd->...ld", weights, v), weights
