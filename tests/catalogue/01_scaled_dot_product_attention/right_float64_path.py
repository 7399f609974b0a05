"""Computes in float64 internally and casts back to the input dtype."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    dtype = q.dtype
    q64, k64, v64 = q.double(), k.double(), v.double()
    scores = q64 @ k64.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, -1).nan_to_num(0.0)
    return (weights @ v64).to(dtype), weights.to(dtype)
