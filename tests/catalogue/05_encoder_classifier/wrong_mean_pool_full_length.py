"""Masked mean pooling that zeroes the padding but divides by the full length L."""
# expect: full length
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    keep = (~key_padding_mask).unsqueeze(-1).to(x.dtype)
    return (x * keep).sum(dim=1) / x.shape[1]
