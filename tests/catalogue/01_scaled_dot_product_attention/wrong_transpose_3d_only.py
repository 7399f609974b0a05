"""k.transpose(1, 2) hard-codes 3-D inputs: 2-D and 4-D batches break."""
# %% patch sdpa
# -     d_k = q.shape[-1]
# -     scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L, S)
# +     scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])

# -         mask = mask.to(torch.bool)

# -         weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
# +         weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
