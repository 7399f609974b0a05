"""Calls F.scaled_dot_product_attention block by block instead of writing the online softmax."""
# expect: do not call F.scaled_dot_product_attention
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    outs = []
    for q0 in range(0, q.shape[-2], block_size):
        q1 = min(q0 + block_size, q.shape[-2])
        mask = torch.arange(k.shape[-2]) <= torch.arange(q0, q1)[:, None] if causal else None
        outs.append(F.scaled_dot_product_attention(q[..., q0:q1, :], k, v, attn_mask=mask))
    return torch.cat(outs, dim=-2)
