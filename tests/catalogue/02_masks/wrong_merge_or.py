"""The two masks are combined with OR instead of AND."""
# expect: OR instead of AND
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        raise ValueError("need at least one mask")
    if causal is None:
        return ~key_padding[:, None, None, :]
    if key_padding is None:
        return causal[None, None]
    return causal[None, None] | ~key_padding[:, None, None, :]
