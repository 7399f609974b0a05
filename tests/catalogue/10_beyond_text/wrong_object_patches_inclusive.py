"""The bottom and right edges counted as part of the box (one pixel too large)."""
# expect: the bottom and right edges included
# %% patch object_patches
# -     rows = (starts < bottom) & (starts + patch_size > top)  # (grid,) patch rows overlapping the box
# -     cols = (starts < right) & (starts + patch_size > left)
# +     rows = (starts <= bottom) & (starts + patch_size > top)  # (grid,) patch rows overlapping the box
# +     cols = (starts <= right) & (starts + patch_size > left)
