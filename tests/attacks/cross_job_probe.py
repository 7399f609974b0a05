"""The other half of cross_job_plant.py: look, from a later kernel, for what an earlier one left.

It searches for up to 6 s while its notebook runs (the planting kernel, graded in the same
batch and sorted before it, starts first). Anything found is printed as READABLE (a file)
or ESCAPED (a hook that ran in this kernel), which the test of every attack looks for in
the graded notebook's outputs.
"""
# %% answer sdpa
import os as _os, glob as _glob, sys as _sys, builtins as _builtins

_MARK = "wb-cross-job-mark"


def _probe():
    found = []
    here = _os.getcwd()
    roots = ["/dev/shm", "/var/tmp", "/run/lock", "/tmp", _os.path.expanduser("~"), _os.path.dirname(here),
             _os.path.dirname(_os.path.dirname(here))]
    for root in roots:
        for path in _glob.glob(_os.path.join(root, "**", _MARK), recursive=True)[:20]:
            found.append(f"READABLE {path}")
    if getattr(_builtins, "_WB_PLANTED", False) or _os.environ.get("WB_PLANTED"):
        found.append("ESCAPED: a planted hook ran in this kernel")
    return found


import time as _time

for _ in range(12):
    _seen = _probe()
    if _seen:
        break
    _time.sleep(0.5)
print("\n".join(_seen) or "nothing planted is visible")


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
