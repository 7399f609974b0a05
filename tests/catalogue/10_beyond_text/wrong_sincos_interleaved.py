"""The row and column tables interleaved dimension by dimension instead of side by side."""
# expect: interleaved dimension by dimension
# %% patch sincos_2d
# -     return torch.cat([rows, cols], dim=-1).reshape(grid_h * grid_w, d_model)
# +     return torch.stack([rows, cols], dim=-1).reshape(grid_h * grid_w, d_model)
