"""Tiled attention over key blocks only; the causal mask compares query i with j - k0, the key's position inside its
block, instead of its absolute position k0 + j: query i sees the first i + 1 keys of every later block."""
# expect: relative to their block
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    """Online softmax over blocks of keys; all queries at once."""
    L, S = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    m = q.new_full((*q.shape[:-1], 1), float("-inf"))
    l = q.new_zeros((*q.shape[:-1], 1))
    acc = q.new_zeros((*q.shape[:-1], v.shape[-1]))
    for k0 in range(0, S, block_size):
        k1 = min(k0 + block_size, S)
        s = q @ k[..., k0:k1, :].transpose(-2, -1)  # (..., L, bk)
        if causal:
            future = torch.arange(k1 - k0, device=q.device) > torch.arange(L, device=q.device)[:, None]
            s = s.masked_fill(future, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + p @ v[..., k0:k1, :]
        m = m_new
    return acc / l
