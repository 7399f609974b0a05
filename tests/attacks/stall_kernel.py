"""Stall: the attention function never returns."""
# flag: limit
# %% answer sdpa
import time

def scaled_dot_product_attention(q, k, v, mask=None):
    while True:
        time.sleep(1)
    out = None
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
