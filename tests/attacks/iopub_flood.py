"""Publish frames larger than the grader accepts on iopub and stdin, and many large ones, while a cell runs and during the grader's calls."""
# %% answer sdpa
_kernel = get_ipython().kernel
_big = "x" * (48 * 2**20)


def _flood():
    parent = _kernel.get_parent("shell")
    for _ in range(4):  # each over the 40 MiB frame limit: ZeroMQ drops them before they are decoded
        _kernel.session.send(_kernel.iopub_socket, "stream", {"name": "stdout", "text": _big}, parent)
        _kernel.session.send(_kernel.stdin_socket, "input_request", {"prompt": _big, "password": False}, parent,
                             ident=_kernel._parent_ident["shell"])
    for _ in range(64):  # under the limit, faster than anyone reads: at most a few wait unread
        _kernel.session.send(_kernel.iopub_socket, "stream", {"name": "stdout", "text": _big[: 8 * 2**20]}, parent)


_flood()


def scaled_dot_product_attention(q, k, v, mask=None):
    _flood()
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
