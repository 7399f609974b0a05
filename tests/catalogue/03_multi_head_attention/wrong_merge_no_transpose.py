"""Heads merged with a reshape and no transpose back."""
# expect: without transposing back
# %% patch merge_heads
# -     x = x.transpose(1, 2)  # (B, L, H, d_k)
