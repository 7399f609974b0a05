"""merge_masks() with no mask at all returns None instead of raising ValueError."""
# expect: expected ValueError
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        return None
    if causal is None:
        return ~key_padding[:, None, None, :]
    if key_padding is None:
        return causal[None, None]
    return causal[None, None] & ~key_padding[:, None, None, :]
