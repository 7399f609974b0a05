"""The box read as (left, top, right, bottom): rows and columns swapped."""
# expect: rows and columns swapped (the box read as
# %% patch object_patches
# -     top, left, bottom, right = (int(v) for v in box)
# +     left, top, right, bottom = (int(v) for v in box)
