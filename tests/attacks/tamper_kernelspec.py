"""Point the notebook at another kernel (kernelspec 'evil')."""
# flag: kernel
# tamper: kernelspec
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
