"""Allocate (and touch) far more memory than the machine has."""
# flag: memory limit
# %% answer sdpa
_hog = []
try:
    for _ in range(100):
        _hog.append(bytearray(1024 * 2**20))
        _hog[-1][::4096] = b"x" * len(range(0, len(_hog[-1]), 4096))  # touch every page
except MemoryError:
    print("memory refused after", len(_hog), "GiB")
_hog = None

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
