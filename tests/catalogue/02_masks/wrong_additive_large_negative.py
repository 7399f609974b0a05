"""-1e9 instead of -inf for the blocked positions."""
# expect: large negative number
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return torch.zeros(allowed.shape).masked_fill(~allowed, -1e9)
