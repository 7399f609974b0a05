"""Type-hinted signature (mask: torch.BoolTensor | None), torch.result_type for the working dtype, finfo.min instead of -inf."""
# %% answer sdpa
def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.BoolTensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    dtype = torch.result_type(q, k)  # float32 stays float32, float64 stays float64
    scores = torch.matmul(q, k.transpose(-1, -2)) / (q.shape[-1] ** 0.5)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, v), weights
    allowed = mask.bool()
    # the most negative finite number: exp() of it minus the row max is exactly 0
    scores = scores.masked_fill(~allowed, torch.finfo(dtype).min)
    weights = torch.softmax(scores, dim=-1)
    # a row with no allowed key would otherwise be uniform: zero it
    weights = weights * allowed.any(dim=-1, keepdim=True)
    return torch.matmul(weights, v), weights
