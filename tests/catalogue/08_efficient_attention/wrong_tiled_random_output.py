"""tiled_attention returns random numbers of the right shape: it never computes attention at all."""
# expect: the memory test's too
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    """Random numbers of the output's shape: small, never the (L, S) matrix, different for every block size."""
    return torch.randn(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
