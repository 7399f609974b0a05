"""Builds the whole (L, S) score matrix into a 512 MiB buffer allocated (and touched) when its cell runs."""
# expect: held more than 128 MiB
# %% answer tiled_attention
SCORES = torch.zeros(512 * 262144)  # the full score matrix of the memory test, allocated here


def tiled_attention(q, k, v, block_size, causal=False):
    """Exact attention from the full score matrix, written in place into the buffer made earlier."""
    L, S = q.shape[-2], k.shape[-2]
    n = q.shape[:-2].numel() * L * S
    fits = n <= SCORES.numel() and q.dtype == SCORES.dtype
    s = SCORES[:n].view(*q.shape[:-2], L, S) if fits else q.new_empty(*q.shape[:-2], L, S)
    torch.matmul(q, k.transpose(-2, -1), out=s)
    s.mul_(1.0 / math.sqrt(q.shape[-1]))
    if causal:  # row by row, in place: nothing of (L, S) size is allocated here either
        for i in range(L):
            s[..., i, i + 1 :].fill_(float("-inf"))
    s.sub_(s.amax(dim=-1, keepdim=True)).exp_()
    s.div_(s.sum(dim=-1, keepdim=True))
    out = q.new_zeros(*q.shape[:-1], v.shape[-1])
    for k0 in range(0, S, block_size):  # the last product in blocks, so that block_size changes the rounding
        out += s[..., k0:k0 + block_size] @ v[..., k0:k0 + block_size, :]
    return out
