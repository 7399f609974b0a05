"""A single reshape to (B, N, C*p*p): the right shape, but its rows are not the patches."""
# expect: a plain reshape without moving the axes
# %% answer patchify
def patchify(images, patch_size):
    """(B, C, H, W) -> (B, N, C*p*p): row-major patches, each flattened in (channel, row, column) order."""
    B, C, H, W = images.shape
    p = patch_size
    if H % p or W % p:
        raise ValueError(f"patch_size {p} must divide the image height {H} and width {W}")
    return images.reshape(B, (H // p) * (W // p), C * p * p)
