"""The diagonal is excluded (tril(-1)): a token cannot attend to itself."""
# expect: diagonal is excluded
# %% patch causal_mask
# -     return torch.ones(size, size, dtype=torch.bool, device=device).tril()  # (size, size)
# +     return torch.ones(size, size, dtype=torch.bool, device=device).tril(diagonal=-1)
