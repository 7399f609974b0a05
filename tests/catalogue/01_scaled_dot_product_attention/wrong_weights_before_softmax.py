"""Returns the scaled scores as the weights (before the softmax)."""
# expect: returned before the softmax
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

# -         mask = mask.to(torch.bool)

# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
# -     return weights @ v, weights  # (..., L, d_v), (..., L, S)
# +         weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
# +     return weights @ v, scores
