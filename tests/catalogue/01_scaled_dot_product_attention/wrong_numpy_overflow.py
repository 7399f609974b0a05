"""NumPy softmax without subtracting the row maximum: overflows for large scores."""
# expect: exp overflowed
# %% answer attention_numpy
def attention_numpy(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True) @ v
