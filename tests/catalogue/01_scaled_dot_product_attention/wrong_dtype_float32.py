"""Everything cast to float32: float64 inputs lose their dtype and precision."""
# expect: no .float()
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     q, k, v = q.float(), k.float(), v.float()
# +     scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

# -         mask = mask.to(torch.bool)

# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
# +         weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
