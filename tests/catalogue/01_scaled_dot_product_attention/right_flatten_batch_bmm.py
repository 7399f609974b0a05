"""Broadcasts the batch dimensions by hand, flattens them and uses torch.bmm, then restores the shape."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    L, S, d_k, d_v = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        batch = torch.broadcast_shapes(batch, mask.shape[:-2])
    q3 = q.expand(*batch, L, d_k).reshape(-1, L, d_k)
    k3 = k.expand(*batch, S, d_k).reshape(-1, S, d_k)
    v3 = v.expand(*batch, S, d_v).reshape(-1, S, d_v)
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(d_k)  # (N, L, S)
    if mask is not None:
        m3 = mask.expand(*batch, L, S).reshape(-1, L, S)
        scores = scores.masked_fill(~m3, float("-inf"))
        weights = torch.softmax(scores, dim=2).masked_fill(~m3.any(2, keepdim=True), 0.0)
    else:
        weights = torch.softmax(scores, dim=2)
    out = torch.bmm(weights, v3)
    return out.reshape(*batch, L, d_v), weights.reshape(*batch, L, S)
