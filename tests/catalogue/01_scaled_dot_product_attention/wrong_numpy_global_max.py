"""NumPy softmax normalised over the whole matrix instead of per row."""
# expect: normalised over the whole matrix
# %% answer attention_numpy
def attention_numpy(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max())
    return weights / weights.sum() @ v
