"""Flood the output (a 200 MB line and a big image) to break the grader or the feedback."""
# %% answer sdpa
import sys
sys.stdout.write("x" * (200 * 2**20) + "\n")
from IPython.display import display, Image
display(Image(data=b"\x89PNG\r\n\x1a\n" + b"0" * (50 * 2**20)))

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
