"""Attention without the causal mask: every position sees the future."""
# expect: no causal mask
# %% patch attention
# -         out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # (B, H, T, d)
# +         out = F.scaled_dot_product_attention(q, k, v)  # (B, H, T, d)
