"""Patches listed down the first column first (column-major), not along the top row."""
# expect: column-major order
# %% patch patchify
# -     x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, p, p): patch grid first, then its content
# +     x = x.permute(0, 4, 2, 1, 3, 5)  # (B, cols, rows, C, p, p)
