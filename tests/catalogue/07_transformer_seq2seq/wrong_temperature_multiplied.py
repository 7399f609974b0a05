"""The logits are multiplied by the temperature instead of divided."""
# expect: multiplied by the temperature
# %% answer sampling_probs
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution to sample the next token from, after temperature, top-k and top-p."""
    logits = logits * temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]  # (..., 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = logits.softmax(-1)
    if top_p is not None:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        mass_before = sorted_p.cumsum(-1) - sorted_p  # probability ranked strictly above
        keep_sorted = mass_before < top_p
        keep = keep_sorted.scatter(-1, order, keep_sorted)  # back to vocabulary order
        probs = probs.masked_fill(~keep, 0.0)
        probs = probs / probs.sum(-1, keepdim=True)
    return probs
