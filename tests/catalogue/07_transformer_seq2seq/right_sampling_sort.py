"""Sampling filter with sort-based top-k and -inf masking for top-p."""
# %% answer sampling_probs
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution to sample the next token from, after temperature, top-k and top-p."""
    z = logits / temperature
    sorted_z, order = z.sort(dim=-1, descending=True)
    keep = torch.ones_like(sorted_z, dtype=torch.bool)
    if top_k is not None:
        keep[..., top_k:] = False
    sorted_z = sorted_z.masked_fill(~keep, float("-inf"))
    if top_p is not None:
        p = sorted_z.softmax(-1)
        keep = keep & ((p.cumsum(-1) - p) < top_p)
        sorted_z = sorted_z.masked_fill(~keep, float("-inf"))
    probs_sorted = sorted_z.softmax(-1)
    return torch.zeros_like(probs_sorted).scatter(-1, order, probs_sorted)
