"""Call the forbidden built-in through the dispatcher: torch.ops.aten."""
# withheld: test_dtype_grad
# %% answer sdpa
def scaled_dot_product_attention(q, k, v, mask=None):
    out, w = torch.ops.aten._scaled_dot_product_attention_math(q, k, v, attn_mask=mask)
    return out, w
