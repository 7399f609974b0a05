"""Heads split with view(B, H, L, d_k) and no transpose."""
# expect: view(B, H, L, d_k) and no transpose
# %% patch split_heads
# -     x = x.reshape(B, L, num_heads, E // num_heads)  # (B, L, H, d_k)
# -     return x.transpose(1, 2)  # (B, H, L, d_k)
# +     return x.view(B, num_heads, L, E // num_heads)
