"""The merged mask has no head axis: (B, L, S) instead of (B, 1, L, S)."""
# expect: shape
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        raise ValueError("need at least one mask")
    if causal is None:
        return ~key_padding[:, None, :]
    if key_padding is None:
        return causal[None]
    return causal[None] & ~key_padding[:, None, :]
