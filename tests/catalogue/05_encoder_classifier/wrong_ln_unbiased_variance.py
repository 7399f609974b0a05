"""LayerNorm with torch's default (unbiased, D - 1) variance."""
# expect: unbiased variance
# %% patch layer_norm
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# +         var = x.var(dim=dims, keepdim=True)
