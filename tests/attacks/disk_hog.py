"""Fill the disk: one 1 GiB file in the work folder (the file-size limit stops it at 512 MiB)."""
# %% answer sdpa
import os
_written = 0
try:
    with open("hog.bin", "wb") as _fh:
        for _ in range(1024):
            _fh.write(b"x" * 2**20)
            _written += 2**20
except OSError as _e:
    print("stopped after", _written // 2**20, "MiB:", type(_e).__name__)
if _written >= 1000 * 2**20:
    print("WROTE a 1 GiB file")

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
