"""Allocate far more memory than the machine has."""
# %% answer sdpa
_hog = []
try:
    for _ in range(100):
        _hog.append(bytearray(1024 * 2**20))
except MemoryError:
    print("memory refused after", len(_hog), "GiB")
_hog = None

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
