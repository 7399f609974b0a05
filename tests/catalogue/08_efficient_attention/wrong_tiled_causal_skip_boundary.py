"""Causal tile skipping off by one at the block boundary (k0 >= q1 - 1 skips a tile the last query needs)."""
# expect: query i sees keys j <= i
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    out = q.new_empty(*q.shape[:-1], v.shape[-1])
    for q0 in range(0, L, block_size):
        q1 = min(q0 + block_size, L)
        q_blk = q[..., q0:q1, :] * scale
        m = q.new_full((*q_blk.shape[:-1], 1), float("-inf"))
        l = q.new_zeros((*q_blk.shape[:-1], 1))
        acc = q.new_zeros((*q_blk.shape[:-1], v.shape[-1]))
        for k0 in range(0, S, block_size):
            if causal and k0 >= q1 - 1:  # off by one: key q1 - 1 is still needed by query q1 - 1
                break
            k1 = min(k0 + block_size, S)
            s = q_blk @ k[..., k0:k1, :].transpose(-2, -1)
            if causal and k1 - 1 > q0:
                future = torch.arange(k0, k1) > torch.arange(q0, q1)[:, None]
                s = s.masked_fill(future, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            alpha = torch.exp(m - m_new)
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = alpha * acc + p @ v[..., k0:k1, :]
            m = m_new
        out[..., q0:q1, :] = acc / l
    return out
