"""Masks merged by adding their additive (0 / -inf) forms and reading back where the sum is finite."""
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        raise ValueError("no mask given")
    total = torch.zeros(1, 1, 1, 1)
    if causal is not None:
        total = total + torch.log(causal.float())[None, None]  # (1, 1, L, S): 0 allowed, -inf blocked
    if key_padding is not None:
        total = total + torch.log((~key_padding).float())[:, None, None, :]  # (B, 1, 1, S)
    return torch.isfinite(total)
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return torch.log(allowed.float())  # log 1 = 0, log 0 = -inf
