"""2-D positions with torch.meshgrid (ij indexing) over the two 1-D tables."""
# %% answer sincos_2d
def sincos_2d(grid_h, grid_w, d_model):
    """(grid_h * grid_w, d_model) 2-D positions: the row's 1-D table, then the column's, row-major."""
    if d_model % 4 != 0:
        raise ValueError("d_model must be divisible by 4")
    r, c = torch.meshgrid(torch.arange(grid_h), torch.arange(grid_w), indexing="ij")
    row_table = sinusoidal_table(grid_h, d_model // 2)
    col_table = sinusoidal_table(grid_w, d_model // 2)
    return torch.cat([row_table[r.flatten()], col_table[c.flatten()]], dim=1)
