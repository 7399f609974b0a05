"""masked_mean_pool as a batched matrix product of per-token weights 1/n (0 on padding) with x."""
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    """Mean of x (B, L, E) over the positions where key_padding_mask (B, L) is False."""
    keep = key_padding_mask.logical_not().to(x.dtype)  # (B, L): 1 for real tokens
    counts = keep.sum(dim=1, keepdim=True).clamp(min=1)  # (B, 1); all-padding rows divide 0 by 1
    weights = keep / counts  # (B, L)
    return torch.bmm(weights.unsqueeze(1), x).squeeze(1)  # (B, 1, L) @ (B, L, E) -> (B, E)
