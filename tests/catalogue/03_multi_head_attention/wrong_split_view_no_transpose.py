"""Heads split with view(B, H, L, d_k) and no transpose."""
# expect: view(B, H, L, d_k) and no transpose
# %% answer split_heads
def split_heads(x, num_heads):
    B, L, E = x.shape
    return x.view(B, num_heads, L, E // num_heads)
