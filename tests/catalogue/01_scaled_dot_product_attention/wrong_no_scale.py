"""The scores are not divided by √d_k."""
# expect: not divided by √d_k
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     scores = q @ k.transpose(-2, -1)

# -         mask = mask.to(torch.bool)

# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
# +         weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
