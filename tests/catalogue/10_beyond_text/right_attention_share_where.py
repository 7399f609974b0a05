"""attention_share with torch.where and an explicit normalisation."""
# %% answer attention_share
def attention_share(weights, patch_mask):
    """The share of each attention row that falls on the masked patches: (..., N) -> (...)."""
    on_object = torch.where(patch_mask, weights, torch.zeros_like(weights)).sum(dim=-1)
    return on_object / weights.sum(dim=-1)
