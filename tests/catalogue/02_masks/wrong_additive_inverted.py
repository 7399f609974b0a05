"""The additive mask is inverted: -inf where allowed, 0 where blocked."""
# expect: -inf where allowed
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return torch.zeros(allowed.shape).masked_fill(allowed, float("-inf"))
