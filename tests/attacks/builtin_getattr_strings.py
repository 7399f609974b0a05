"""Reach F.scaled_dot_product_attention by a name built from pieces."""
# withheld: test_dtype_grad
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    fn = getattr(F, "scaled_dot_" + "product_attention")
    eye = torch.eye(k.shape[-2], dtype=q.dtype).expand(*k.shape[:-1], k.shape[-2])
    return fn(q, k, v, attn_mask=mask), fn(q, k, eye, attn_mask=mask)
