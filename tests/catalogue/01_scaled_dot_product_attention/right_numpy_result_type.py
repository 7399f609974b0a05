"""attention_numpy picks its dtype with numpy.result_type and uses np.einsum and np.divide."""
# %% answer attention_numpy
def attention_numpy(q, k, v):
    """Scaled dot-product attention in NumPy, stable for large scores."""
    dtype = np.result_type(q, k, v, np.float32)  # at least float32; float64 inputs stay float64
    q, k, v = (np.asarray(a, dtype=dtype) for a in (q, k, v))
    d_k = q.shape[-1]
    scores = np.einsum("ld,sd->ls", q, k) / np.sqrt(d_k)
    scores -= np.max(scores, axis=1, keepdims=True)  # the largest score of each row becomes 0
    e = np.exp(scores)
    weights = np.divide(e, np.sum(e, axis=1, keepdims=True))
    return np.einsum("ls,sd->ld", weights, v)
