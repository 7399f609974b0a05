"""Tiles only the keys: all queries at once against one key block, (L, block) scores at a time."""
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    L, S = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    rows = torch.arange(L)[:, None]
    for k0 in range(0, S, block_size):
        k1 = min(k0 + block_size, S)
        s = torch.einsum("...ld,...sd->...ls", q, k[..., k0:k1, :])
        if causal:
            s = s.masked_fill(torch.arange(k0, k1)[None, :] > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        # a row whose keys so far are all masked keeps m = -inf: guard exp(-inf - (-inf))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - safe)
        alpha = torch.exp(m - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + p @ v[..., k0:k1, :]
        m = m_new
    return acc / l
