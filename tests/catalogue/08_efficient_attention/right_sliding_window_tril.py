"""Sliding window as the causal triangle minus the triangle window positions further down."""
# %% answer sliding_window
def sliding_window_mask(size, window, device=None):
    if window < 1:
        raise ValueError(f"window={window}: it must be at least 1")
    ones = torch.ones(size, size, dtype=torch.bool, device=device)
    return ones.tril() & ~ones.tril(-window)
