"""Builds the full score matrix and softmaxes it: right values, but O(L·S) memory."""
# expect: held more than 128 MiB
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        scores = scores.masked_fill(~torch.ones(scores.shape[-2:], dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
