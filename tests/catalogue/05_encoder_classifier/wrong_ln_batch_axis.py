"""LayerNorm that normalises each feature over the batch axis (BatchNorm's statistics)."""
# expect: over the batch axis
# %% patch layer_norm
# -         mean = x.mean(dim=dims, keepdim=True)
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# +         mean = x.mean(dim=0, keepdim=True)
# +         var = x.var(dim=0, keepdim=True, correction=0)
