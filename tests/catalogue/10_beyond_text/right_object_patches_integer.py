"""object_patches from the first and last patch row and column the box touches (integer division)."""
# %% answer object_patches
def object_patches(box, image_size, patch_size):
    """(N,) bool: the patches (row-major) that hold at least one pixel of box = (top, left, bottom, right)."""
    top, left, bottom, right = map(int, box)
    grid = image_size // patch_size
    mask = torch.zeros(grid, grid, dtype=torch.bool)
    mask[top // patch_size:(bottom - 1) // patch_size + 1, left // patch_size:(right - 1) // patch_size + 1] = True
    return mask.reshape(-1)
