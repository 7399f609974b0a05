"""shift_right by writing into a new tensor filled with bos_id."""
# %% answer shift_right
def shift_right(targets, bos_id):
    """Teacher-forcing decoder input: <bos> followed by targets[:, :-1]."""
    out = torch.full_like(targets, bos_id)
    out[:, 1:] = targets[:, :-1]
    return out
