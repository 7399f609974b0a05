"""Sliding window off by one: i - j <= window lets each query see window + 1 keys."""
# expect: off by one: window + 1 keys
# %% patch sliding_window
# -     return (j <= i) & (i - j < window)  # (size, size)
# +     return (j <= i) & (i - j <= window)
