"""Replace the servant after the grader defines it: every reply is forged, each breaking a limit of the wire format."""
# %% answer sdpa
import json as _json


def _forgeries(n):
    deep = {"t": "list", "v": []}
    node = deep
    for _ in range(5000):
        child = {"t": "list", "v": []}
        node["v"].append(child)
        node = child
    tensor = {"t": "tensor", "a": "a0", "dtype": "float32", "grad": False}
    return [
        ({"ok": False, "error": {"type": "KeyboardInterrupt", "builtin": "KeyboardInterrupt", "message": "stop"}}, {}, []),
        ({"ok": False, "error": {"type": "SystemExit", "builtin": "SystemExit", "message": "exit"}}, {}, []),
        ({"ok": True, "value": tensor}, {"a0": [0, "float32", [2**40]]}, [b"\0" * 16]),
        ({"ok": True, "value": tensor}, {"a0": [0, "object", [1]]}, [b"\0" * 8]),
        ({"ok": True, "value": tensor}, {"a0": [5, "float32", [1]]}, [b"\0" * 4]),
        ({"ok": True, "value": {"t": "tensor", "a": "a0", "dtype": "bfloat16"}}, {"a0": [0, "float32", [4]]}, [b"\0" * 16]),
        ({"ok": True, "value": {"t": "ref", "id": 1, "type": "X", "torch_class": "torch.utils.model_dump.__main__.X"}}, {}, []),
        ({"ok": True, "value": {"t": "ref", "id": 1, "type": "X", "torch_class": "torch.nn.modules.linear.Linear"}}, {}, []),
        ({"ok": True, "value": deep}, {}, []),
        ({"ok": True, "value": {"t": "float", "v": "1e999999"}}, {}, []),
        ({"ok": True, "value": {"t": "size", "v": [10**30]}}, {}, []),
        ({"ok": True, "value": {"t": "dict", "k": [{"a": 1}], "v": [1]}}, {}, []),
    ][n % 12]


def _forged_serve(data, buffers):
    reply, meta, out = _forgeries(data["n"])
    return {"done": data["n"], "reply": reply, "arrays": meta}, out


def _reinstall(*_):
    globals()["__wb_serve"] = _forged_serve


get_ipython().events.register("post_run_cell", _reinstall)


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
