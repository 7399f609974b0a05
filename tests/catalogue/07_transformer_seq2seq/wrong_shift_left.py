"""The decoder input is the target shifted left (targets[:, 1:]) instead of right."""
# expect: shifted left
# %% answer shift_right
def shift_right(targets, bos_id):
    """Teacher-forcing decoder input (wrong: shifted left)."""
    pad = torch.zeros_like(targets[:, :1])
    return torch.cat([targets[:, 1:], pad], dim=1)
