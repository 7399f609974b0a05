"""Inside a patch the values run (row, column, channel), as in a channels-last image."""
# expect: channels last inside a patch
# %% patch patchify
# -     x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, p, p): patch grid first, then its content
# +     x = x.permute(0, 2, 4, 3, 5, 1)  # (B, rows, cols, p, p, C)
