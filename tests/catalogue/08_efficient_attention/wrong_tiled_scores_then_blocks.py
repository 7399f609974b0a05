"""Builds the whole (L, S) score matrix, then runs the online softmax over its column blocks: the result
depends on block_size, as a tiled one does, but it holds O(L·S) memory."""
# expect: held more than 128 MiB
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    L, S = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L, S): the whole matrix
    if causal:
        scores = scores.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    for k0 in range(0, S, block_size):
        s = scores[..., k0 : k0 + block_size]
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        p, alpha = torch.exp(s - safe), torch.exp(m - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + p @ v[..., k0 : k0 + block_size, :]
        m = m_new
    return acc / l
