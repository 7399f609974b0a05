"""The share is the sum of the masked weights, not divided by the row's total."""
# expect: the row's total
# %% patch attention_share
# -     return (weights * patch_mask.to(weights.dtype)).sum(-1) / weights.sum(-1)
# +     return (weights * patch_mask.to(weights.dtype)).sum(-1)
