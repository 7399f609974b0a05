"""The diagonal is excluded (tril(-1)): a token cannot attend to itself."""
# expect: diagonal is excluded
# %% answer causal_mask
def causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).tril(diagonal=-1)
