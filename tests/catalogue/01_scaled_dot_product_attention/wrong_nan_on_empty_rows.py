"""Fully masked rows left as NaN (softmax of all -inf)."""
# expect: NaN
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

# -         mask = mask.to(torch.bool)

# -     if mask is not None:
# -         # a row with no allowed key is softmax(-inf, ..., -inf) = NaN: make it zero
# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
