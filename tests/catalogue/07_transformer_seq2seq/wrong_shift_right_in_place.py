"""Right output, but it writes into the caller's targets afterwards (a real bug: the loss then sees shifted labels)."""
# expect: changed its input in place
# %% answer shift_right
def shift_right(targets, bos_id):
    out = torch.cat([torch.full_like(targets[:, :1], bos_id), targets[:, :-1]], dim=1)
    targets.fill_(0)
    return out
