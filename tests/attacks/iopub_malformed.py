"""While its notebook runs (nbclient reads iopub) and while the grader calls it (the link polls iopub), the kernel
publishes malformed iopub messages: unframed, unsigned, and signed but not JSON, nested too deep or of the wrong shape."""
# flag: malformed message
# %% answer sdpa
import json as _json

_kernel = get_ipython().kernel


def _signed(header, content):
    parts = [header, b"{}", b"{}", content]
    return [b"<IDS|MSG>", _kernel.session.sign(parts), *parts]


def _garbage():
    head = _json.dumps({"msg_id": "x", "msg_type": "comm_msg", "session": "s", "username": "u",
                        "date": "2026-01-01T00:00:00Z", "version": "5.3"}).encode()
    return [
        [b"no delimiter at all"],
        [b"<IDS|MSG>", b"0" * 64, head, b"{}", b"{}", b"{}"],  # a signature that is not the session's
        _signed(b"[1, 2, 3]", b"{}"),  # a header that is not an object
        _signed(head, b"not json"),
        _signed(head, b"[" * 200_000 + b"]" * 200_000),  # deeper than any decoder's recursion
        _signed(head, b'{"comm_id": 7, "data": [1, 2]}'),
        [b"<IDS|MSG>"],  # the delimiter and nothing after it
    ]


for _frames in _garbage():  # the notebook's own run
    _kernel.iopub_socket.send_multipart(_frames)


def scaled_dot_product_attention(q, k, v, mask=None):
    if "__wb_serve" in globals():  # the grader's calls, not the notebook's own run
        for frames in _garbage():
            _kernel.iopub_socket.send_multipart(frames)
        import time as _time

        _time.sleep(0.05)  # let the IO thread publish them before the reply
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
