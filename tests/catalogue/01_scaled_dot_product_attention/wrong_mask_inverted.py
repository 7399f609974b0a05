"""The mask read as True = blocked (nn.MultiheadAttention's convention)."""
# expect: the mask is inverted
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

# -         mask = mask.to(torch.bool)
# -         # -inf on blocked keys makes their softmax weight exactly 0
# -         scores = scores.masked_fill(~mask, float("-inf"))
# +         scores = scores.masked_fill(mask, float("-inf"))

# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
# +         weights = weights.masked_fill(mask.all(-1, keepdim=True), 0.0)
