"""Resolve F.scaled_dot_product_attention from a string with pkgutil.resolve_name."""
# withheld: test_dtype_grad
# %% answer sdpa
import pkgutil


def scaled_dot_product_attention(q, k, v, mask=None):
    fn = pkgutil.resolve_name("torch.nn.functional:scaled_dot_" + "product_attention")
    eye = torch.eye(k.shape[-2], dtype=q.dtype).expand(*k.shape[:-1], k.shape[-2])
    return fn(q, k, v, attn_mask=mask), fn(q, k, eye, attn_mask=mask)
