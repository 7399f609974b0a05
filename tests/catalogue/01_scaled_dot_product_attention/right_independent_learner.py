"""An answer written from the student notebook alone, without the reference: every stub."""

# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v over the last two dims; returns (output, weights)."""
    d_k = q.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)  # (..., L, S)
    if mask is None:
        weights = torch.softmax(scores, dim=-1)
    else:
        allowed = mask if mask.dtype == torch.bool else mask.to(torch.bool)
        scores = scores.masked_fill(~allowed, float("-inf"))
        # rows where no key is allowed: give them finite scores so the softmax is not 0/0, then zero them
        has_key = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~has_key, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)
    output = torch.matmul(weights, v)
    return output, weights


# %% answer attention_numpy
def attention_numpy(q, k, v):
    """Scaled dot-product attention in NumPy, stable for large scores."""
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    s = q @ k.T / np.sqrt(q.shape[-1])  # (L, S)
    s = s - s.max(axis=-1, keepdims=True)  # the largest exponent becomes exp(0) = 1
    e = np.exp(s)
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v
