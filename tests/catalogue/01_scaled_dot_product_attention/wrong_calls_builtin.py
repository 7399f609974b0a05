"""Delegates to F.scaled_dot_product_attention (the built-in the notebook asks not to call)."""
# expect: do not call F.scaled_dot_product_attention
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    eye = torch.eye(k.shape[-2], dtype=q.dtype).expand(*k.shape[:-1], k.shape[-2])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    w = F.scaled_dot_product_attention(q, k, eye, attn_mask=mask)
    if mask is not None:
        empty = ~mask.any(-1, keepdim=True)
        out, w = out.masked_fill(empty, 0.0), w.masked_fill(empty, 0.0)
    return out, w
