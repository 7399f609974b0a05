"""Builds the whole (L, S) score matrix into a 512 MiB shared buffer (np.memmap of a file in /tmp, MAP_SHARED)
allocated and touched when its cell runs: in the grader's copy of the kernel its pages stay shared, so writing
them made no new page until the copy made every writable shared mapping its own."""
# expect: held more than 128 MiB
# %% answer tiled_attention
BUFFER = np.memmap("/tmp/scores.bin", dtype=np.float32, mode="w+", shape=(512 * 262144,))
BUFFER[:] = 0.0  # every page touched (and charged) before any check runs
SCORES = torch.from_numpy(BUFFER)


def tiled_attention(q, k, v, block_size, causal=False):
    """Exact attention from the full score matrix, written in place into the shared buffer made earlier."""
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
