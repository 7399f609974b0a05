"""One iopub message of many frames, each under the frame limit, 1.2 GB in all (the same 39 MiB buffer sent 30 times)."""
# %% answer sdpa
_kernel = get_ipython().kernel
_frame = memoryview(b"x" * (39 * 2**20))


def _flood():
    parent = _kernel.get_parent("shell")
    for _ in range(1):
        _kernel.session.send(_kernel.iopub_socket, "stream", {"name": "stdout", "text": "."}, parent,
                             buffers=[_frame] * 30)


_flood()


def scaled_dot_product_attention(q, k, v, mask=None):
    _flood()
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
