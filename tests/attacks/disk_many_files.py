"""Fill the disk with many files, each under the file-size limit: 4 x 400 MiB (the job's disk quota stops it)."""
# flag: disk limit
# %% answer sdpa
import time
for _i in range(4):
    try:
        with open(f"part{_i}.bin", "wb") as _fh:
            for _ in range(400):
                _fh.write(b"x" * 2**20)
    except OSError:
        pass
time.sleep(5)
print("WROTE 1.6 GiB")

def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
