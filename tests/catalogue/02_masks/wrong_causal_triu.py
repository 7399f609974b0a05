"""torch.triu instead of torch.tril: every query sees the future."""
# expect: triu
# %% answer causal_mask
def causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).triu()
