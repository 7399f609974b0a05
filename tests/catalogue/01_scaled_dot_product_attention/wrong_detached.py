"""Computes through NumPy: correct numbers, but no gradient flows."""
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    qn, kn, vn = (t.detach().cpu().numpy() for t in (q, k, v))
    scores = qn @ np.swapaxes(kn, -1, -2) / np.sqrt(qn.shape[-1])
    if mask is not None:
        scores = np.where(mask.cpu().numpy(), scores, -np.inf)
    scores = scores - np.nanmax(np.where(np.isinf(scores), np.nan, scores), axis=-1, keepdims=True) if False else scores
    m = np.max(scores, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(scores - m)
    s = e.sum(-1, keepdims=True)
    w = np.divide(e, s, out=np.zeros_like(e), where=s > 0)
    weights = torch.from_numpy(w).to(q.dtype)
    return weights @ v.detach(), weights
