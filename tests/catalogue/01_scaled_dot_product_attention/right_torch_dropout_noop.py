"""Follows the reference math of F.scaled_dot_product_attention's docs: a no-op torch.dropout(weights, 0.0, False) stays in."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    L, S = q.size(-2), k.size(-2)
    scale_factor = 1 / math.sqrt(q.size(-1))
    attn_weight = q @ k.transpose(-2, -1) * scale_factor  # (..., L, S)
    if mask is not None:
        attn_weight = attn_weight.masked_fill(mask.logical_not(), float("-inf"))
    attn_weight = torch.softmax(attn_weight, dim=-1)
    if mask is not None:
        # rows where every key is blocked are NaN after the softmax: they get zero weight
        empty = ~mask.any(dim=-1, keepdim=True)
        attn_weight = attn_weight.masked_fill(empty, 0.0)
    # this function has no dropout argument: p = 0 and train = False, so this changes nothing
    attn_weight = torch.dropout(attn_weight, 0.0, False)
    return attn_weight @ v, attn_weight
