"""Against the link's own reader of the servant's replies (it skips Jupyter's date parsing and protocol
adaptation): before each real reply, the kernel publishes signed replies to the same request whose
headers Jupyter refuses (no message id, a version that is empty, not a number or not text), claiming a value,
then one of them again, frame for frame (a replayed signature)."""
# flag: malformed message
# %% answer sdpa
import json as _json

_kernel = get_ipython().kernel


def _signed(header, content):
    parts = [header, b"{}", b"{}", content]
    return [b"<IDS|MSG>", _kernel.session.sign(parts), *parts]


def _forgeries(n, comm_id):
    content = _json.dumps({"comm_id": comm_id, "data": {"done": n, "reply": {"ok": True, "value": 1.0},
                                                        "arrays": {}}}).encode()
    base = {"msg_id": "forged", "msg_type": "comm_msg", "session": "s", "username": "u",
            "date": "2026-01-01T00:00:00Z", "version": "5.3"}
    heads = [{k: v for k, v in base.items() if k != "msg_id"}, *({**base, "version": v} for v in ("x.1", 5, ""))]
    return [_signed(_json.dumps(h).encode(), content) for h in heads]


def _wrap(serve):
    def forging(data, buffers):
        comm_id = next(iter(_kernel.comm_manager.comms), "")
        forged = _forgeries(data["n"], comm_id)
        for frames in [*forged, forged[0]]:
            _kernel.iopub_socket.send_multipart(frames)
        return serve(data, buffers)

    forging.wrapped = True
    return forging


def _reinstall(*_):
    serve = globals().get("__wb_serve")
    if serve is not None and not getattr(serve, "wrapped", False):
        globals()["__wb_serve"] = _wrap(serve)


get_ipython().events.register("post_run_cell", _reinstall)


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
