"""The decoder input is shifted right but starts with 0 instead of <bos>."""
# expect: not bos_id
# %% answer shift_right
def shift_right(targets, bos_id):
    """Teacher-forcing decoder input (wrong: no <bos>)."""
    out = torch.zeros_like(targets)
    out[:, 1:] = targets[:, :-1]
    return out
