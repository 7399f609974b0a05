"""Masks expanded to their full (B, 1, L, S) shape explicitly; additive mask from torch.full and masked_fill."""
# %% answer causal_mask
def causal_mask(size, device=None):
    return torch.tril(torch.ones((size, size), device=device)).bool()
# %% answer merge_masks
def merge_masks(causal=None, key_padding=None):
    if causal is None and key_padding is None:
        raise ValueError("merge_masks: both masks are None")
    B = 1 if key_padding is None else key_padding.shape[0]
    L = 1 if causal is None else causal.shape[0]
    S = causal.shape[1] if causal is not None else key_padding.shape[1]
    device = causal.device if causal is not None else key_padding.device
    allowed = torch.ones(B, 1, L, S, dtype=torch.bool, device=device)
    if causal is not None:
        allowed &= causal.view(1, 1, L, S).expand(B, 1, L, S)
    if key_padding is not None:
        allowed &= ~key_padding.view(B, 1, 1, S).expand(B, 1, L, S)
    return allowed
# %% answer to_additive_mask
def to_additive_mask(allowed):
    return torch.full(allowed.shape, float("-inf")).masked_fill(allowed, 0.0)
