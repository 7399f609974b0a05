"""Causal mask from an arange comparison, padding with eq, masks merged with logical_and, additive mask with torch.where."""
# %% answer causal_mask
def causal_mask(size, device=None):
    pos = torch.arange(size, device=device)
    return pos[:, None] >= pos[None, :]  # query i may see key j <= i
# %% answer key_padding_mask
def key_padding_mask(token_ids, pad_id):
    return token_ids.eq(pad_id)
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        raise ValueError("give at least one mask")
    result = None
    if causal is not None:
        result = causal.unsqueeze(0).unsqueeze(0)
    if key_padding is not None:
        keep = key_padding.logical_not().unsqueeze(1).unsqueeze(1)
        result = keep if result is None else torch.logical_and(result, keep)
    return result
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return torch.where(allowed, torch.tensor(0.0, device=allowed.device),
                       torch.tensor(float("-inf"), device=allowed.device))
