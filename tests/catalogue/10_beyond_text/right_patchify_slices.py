"""patchify by slicing each patch out in a double loop and stacking them."""
# %% answer patchify
def patchify(images, patch_size):
    """(B, C, H, W) -> (B, N, C*p*p): row-major patches, each flattened in (channel, row, column) order."""
    B, C, H, W = images.shape
    p = patch_size
    if H % p != 0:
        raise ValueError(f"height {H} is not a multiple of {p}")
    if W % p != 0:
        raise ValueError(f"width {W} is not a multiple of {p}")
    patches = []
    for top in range(0, H, p):
        for left in range(0, W, p):
            patches.append(images[:, :, top:top + p, left:left + p].flatten(1))
    return torch.stack(patches, dim=1)
