"""The Noam schedule misses its d_model^-0.5 factor."""
# expect: d_model^-0.5 factor is missing
# %% patch noam_lr
# -     return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
# +     return min(step ** -0.5, step * warmup ** -1.5)
