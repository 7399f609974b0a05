"""patchify with F.unfold: its columns are the patches, each in (channel, row, column) order."""
# %% answer patchify
def patchify(images, patch_size):
    """(B, C, H, W) -> (B, N, C*p*p): row-major patches, each flattened in (channel, row, column) order."""
    H, W = images.shape[-2:]
    if H % patch_size != 0 or W % patch_size != 0:
        raise ValueError(f"{patch_size} does not divide {H} x {W}")
    return F.unfold(images, kernel_size=patch_size, stride=patch_size).transpose(1, 2)
