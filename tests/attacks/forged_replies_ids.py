"""Forged replies at the wrong time and for the wrong request, and nodes that are well-formed but hostile.

The servant is replaced after the grader defines it. Besides answering each request it
pushes, on the servant's own comm, replies for the next requests before they are sent
(request ids are counted 1, 2, 3, ...: predictable), and `done: true` (which == 1 in Python).
The answers themselves: error types the grader's own code handles specially
(StopIteration, GeneratorExit, BaseExceptionGroup, AssertionError with a check's message),
tags hidden in strings, a generator with a corrupt state, a device that does not exist,
a 4000-digit integer, an integer tensor that requires grad, a complex array, and
handles whose len() is 2**62 and whose items are handles again (numpy's sequence protocol).
"""
# %% answer sdpa
def _comm():
    for comm in get_ipython().kernel.comm_manager.comms.values():
        if getattr(comm, "target_name", "") == "wb_servant":
            return comm
    return None


def _err(builtin, message="forged"):
    return {"ok": False, "error": {"type": builtin, "builtin": builtin, "message": message}}


_ONES = {"t": "tensor", "a": "a0", "dtype": "float32", "grad": False, "fn": False, "device": "cpu"}


def _answer(n, op):
    if op == "len":
        return {"ok": True, "value": 2**62}, {}, []
    if op in ("getitem", "getattr"):
        return {"ok": True, "value": {"t": "ref", "id": n, "type": "X" * 10_000, "module": False, "call": True, "torch_class": "torch.nn.Identity"}}, {}, []
    return [
        (_err("StopIteration"), {}, []),
        (_err("GeneratorExit"), {}, []),
        (_err("BaseExceptionGroup"), {}, []),
        (_err("AssertionError", "[test_matches_torch/output] ok"), {}, []),
        ({"ok": True, "value": '{"t": "ref", "id": 1}'}, {}, []),
        ({"ok": True, "value": {"t": "generator", "a": "a0"}}, {"a0": [0, "uint8", [3]]}, [b"\1\2\3"]),
        ({"ok": True, "value": [{"t": "device", "v": "cuda:999"}, {"t": "device", "v": "../../x"}]}, {}, []),
        ({"ok": True, "value": int("9" * 4000)}, {}, []),
        ({"ok": True, "value": {**_ONES, "dtype": "int64", "grad": True, "fn": True}}, {"a0": [0, "int64", [2]]}, [b"\1" * 16]),
        ({"ok": True, "value": {"t": "ndarray", "a": "a0"}}, {"a0": [0, "complex128", [1]]}, [b"\0" * 16]),
        ({"ok": True, "value": {"t": "ref", "id": 10**30, "type": "Tensor", "module": True, "call": True, "torch_class": "torch.nn.modules.linear.Linear"}}, {}, []),
        ({"ok": True, "value": [_ONES, {**_ONES, "g": "a0"}], "mutated": list(range(10_000))}, {"a0": [0, "float32", [4]]}, [b"\0" * 16]),
    ][n % 12]


def _forged_serve(data, buffers):
    n, op = data["n"], data.get("req", {}).get("op")
    reply, meta, out = _answer(n, op)
    comm = _comm()
    if comm is not None:  # the next requests' replies, before they are asked
        for ahead in range(n + 1, n + 4):
            ahead_reply, ahead_meta, ahead_out = _answer(ahead, "call")
            comm.send({"done": ahead, "reply": ahead_reply, "arrays": ahead_meta}, buffers=ahead_out)
        comm.send({"done": True, "reply": {"ok": True, "value": 1.0}, "arrays": {}})
    return {"done": n, "reply": reply, "arrays": meta}, out


def _reinstall(*_):
    globals()["__wb_serve"] = _forged_serve


get_ipython().events.register("post_run_cell", _reinstall)


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
