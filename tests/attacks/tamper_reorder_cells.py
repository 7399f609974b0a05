"""Move the test cells above the setup cell (so they would run before anything exists)."""
# flag: reordered
# tamper: reorder_cells
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
