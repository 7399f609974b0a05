"""Rows and columns swapped in the 2-D positions: the column's table fills the first half."""
# expect: the halves are swapped
# %% patch sincos_2d
# -     return torch.cat([rows, cols], dim=-1).reshape(grid_h * grid_w, d_model)
# +     return torch.cat([cols, rows], dim=-1).reshape(grid_h * grid_w, d_model)
