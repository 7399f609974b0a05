"""Sliding window off by one: i - j <= window lets each query see window + 1 keys."""
# expect: off by one: window + 1 keys
# %% answer sliding_window
def sliding_window_mask(size, window, device=None):
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i = torch.arange(size, device=device)[:, None]
    j = torch.arange(size, device=device)[None, :]
    return (j <= i) & (i - j <= window)
