"""LayerNorm that always normalises over the last dimension only, whatever normalized_shape is."""
# expect: only the last dimension
# %% patch layer_norm
# -         mean = x.mean(dim=dims, keepdim=True)
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# +         mean = x.mean(dim=-1, keepdim=True)
# +         var = x.var(dim=-1, keepdim=True, correction=0)
