"""Keeps a normalised output and its log-sum-exp per row, merged with logaddexp (FlashAttention-2 style)."""
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    L, S = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    pieces = []
    for q0 in range(0, L, block_size):
        q1 = min(q0 + block_size, L)
        qb = q[..., q0:q1, :]
        lse = None  # log of the softmax denominator over the keys seen so far
        o = None  # softmax-weighted values over the keys seen so far (already normalised)
        for k0 in range(0, min(S, q1) if causal else S, block_size):
            k1 = min(k0 + block_size, S)
            s = (qb @ k[..., k0:k1, :].transpose(-2, -1)) * scale
            if causal:
                s = s.masked_fill(torch.arange(k0, k1)[None, :] > torch.arange(q0, q1)[:, None], float("-inf"))
            lse_b = torch.logsumexp(s, dim=-1, keepdim=True)
            o_b = torch.softmax(s, dim=-1) @ v[..., k0:k1, :]
            if lse is None:
                lse, o = lse_b, o_b
            else:
                new = torch.logaddexp(lse, lse_b)
                o = torch.exp(lse - new) * o + torch.exp(lse_b - new) * o_b
                lse = new
        pieces.append(o)
    return torch.cat(pieces, dim=-2)
