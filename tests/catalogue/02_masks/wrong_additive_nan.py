"""(~allowed).float() * -inf: 0 × -inf is NaN at every allowed position."""
# expect: NaN
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return (~allowed).float() * float("-inf")
