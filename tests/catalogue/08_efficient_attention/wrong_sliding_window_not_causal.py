"""Sliding window that is not causal: a symmetric band |i - j| < window."""
# expect: not causal
# %% patch sliding_window
# -     return (j <= i) & (i - j < window)  # (size, size)
# +     return (i - j).abs() < window
