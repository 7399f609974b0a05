"""Against the link's header peek (it reads only a message's header to drop what is not a comm reply):
while the grader calls it, the kernel publishes signed messages whose header lies or cannot be peeked at:
a comm reply disguised as a status message, headers nested too deep or longer than the peek reads,
a type that is not a string, and a flood of small status messages to bury the real reply."""
# flag: malformed message
# %% answer sdpa
import json as _json

_kernel = get_ipython().kernel


def _signed(header, content):
    parts = [header, b"{}", b"{}", content]
    return [b"<IDS|MSG>", _kernel.session.sign(parts), *parts]


def _head(msg_type, **extra):
    return _json.dumps({"msg_id": "x", "msg_type": msg_type, "session": "s", "username": "u",
                        "date": "2026-01-01T00:00:00Z", "version": "5.3", **extra}).encode()


def _disguised():
    reply = _json.dumps({"comm_id": "any", "data": {"done": 1, "reply": {"ok": True, "value": 1.0}}}).encode()
    return [
        _signed(_head("status"), reply),  # a reply the peek drops unread
        _signed(b"[" * 3000 + b"]" * 3000, reply),  # too deep for the peek: decoded the full way, refused
        _signed(_head("comm_msg", pad="x" * 8000), b'{"comm_id": 7}'),  # longer than the peek reads
        _signed(_json.dumps({"msg_type": 5}).encode(), reply),  # a type that is not a string
        *[_signed(_head("status"), b'{"execution_state": "idle"}') for _ in range(2000)],
    ]


def scaled_dot_product_attention(q, k, v, mask=None):
    if "__wb_serve" in globals():  # the grader's calls, not the notebook's own run
        for frames in _disguised():
            _kernel.iopub_socket.send_multipart(frames)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
