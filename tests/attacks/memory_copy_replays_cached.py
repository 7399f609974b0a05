"""Notebook 08: tiled_attention builds the whole (L, S) score matrix (no tiling, no online softmax) and
remembers each answer by its inputs. The grader measures memory by calling it again, with the same
inputs, in a forked copy of the kernel that only reported whether the call returned: the copy inherited
the remembered answer and returned it without allocating, so `never_builds_scores` passed. Now the check
compares the output of the measured call itself, on inputs the kernel has not seen before. Summing
p @ v over key blocks of block_size makes the outputs differ in the last bits, so `works_in_blocks`
passes too. test_tiled_memory should be lost: the function holds the 512 MiB score matrix."""
# notebook: 08_efficient_attention
# lost: test_tiled_memory
# %% answer tiled_attention
ANSWERS = {}


def tiled_attention(q, k, v, block_size, causal=False):
    key = (tuple(q.shape), tuple(k.shape), block_size, causal, float(q.sum()), float(k.sum()), float(v.sum()))
    if key in ANSWERS:
        return ANSWERS[key]
    L, S = q.shape[-2], k.shape[-2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L, S): the whole score matrix
    if causal:
        s.masked_fill_(torch.arange(S) > torch.arange(L)[:, None], float("-inf"))
    s.sub_(s.amax(dim=-1, keepdim=True)).exp_()
    total = s.sum(dim=-1, keepdim=True)
    out = sum(s[..., k0 : k0 + block_size] @ v[..., k0 : k0 + block_size, :] for k0 in range(0, S, block_size))
    ANSWERS[key] = out / total
    return ANSWERS[key]
