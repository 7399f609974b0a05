"""NumPy softmax without subtracting the row maximum: overflows for large scores."""
# expect: exp overflowed
# %% patch attention_numpy
# -     scores = scores - scores.max(axis=-1, keepdims=True)  # largest exponent is e^0

# -     weights /= weights.sum(axis=-1, keepdims=True)
# -     return weights @ v  # (L, d_v)
# +     return weights / weights.sum(axis=-1, keepdims=True) @ v
