"""Sliding window that is not causal: a symmetric band |i - j| < window."""
# expect: not causal
# %% answer sliding_window
def sliding_window_mask(size, window, device=None):
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i = torch.arange(size, device=device)[:, None]
    j = torch.arange(size, device=device)[None, :]
    return (i - j).abs() < window
