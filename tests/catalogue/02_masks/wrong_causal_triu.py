"""torch.triu instead of torch.tril: every query sees the future."""
# expect: triu
# %% patch causal_mask
# -     return torch.ones(size, size, dtype=torch.bool, device=device).tril()  # (size, size)
# +     return torch.ones(size, size, dtype=torch.bool, device=device).triu()
