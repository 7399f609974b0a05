"""patchify with a six-axis view and einsum to reorder the axes."""
# %% answer patchify
def patchify(images, patch_size):
    """(B, C, H, W) -> (B, N, C*p*p): row-major patches, each flattened in (channel, row, column) order."""
    b, c, h, w = images.shape
    if h % patch_size or w % patch_size:
        raise ValueError("the patch size must divide the height and the width")
    gh, gw = h // patch_size, w // patch_size
    grid = images.view(b, c, gh, patch_size, gw, patch_size)
    return torch.einsum("bcipjq->bijcpq", grid).reshape(b, gh * gw, -1)
