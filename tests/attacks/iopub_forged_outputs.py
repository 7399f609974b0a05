"""Signed, well-framed iopub messages for the running cell whose contents are of the wrong types (nbclient turns them into outputs)."""
# flag: malformed message
# %% answer sdpa
_kernel = get_ipython().kernel
_parent = _kernel.get_parent("shell")
for _type, _content in [
    ("stream", {"name": 5, "text": 7}),
    ("stream", {"name": "stdout", "text": ["a", 1]}),
    ("display_data", {"data": ["text/html", "<b>x</b>"], "metadata": 3}),
    ("display_data", {"data": {"text/plain": 5, "image/png": {"a": 1}}, "metadata": {}, "transient": {"display_id": 9}}),
    ("execute_result", {"data": "x", "metadata": {}, "execution_count": "one"}),
    ("error", {"ename": 1, "evalue": None, "traceback": "not a list"}),
    ("clear_output", {"wait": "yes"}),
    ("update_display_data", {"data": {}, "metadata": {}, "transient": {"display_id": ["x"]}}),
    ("status", {"execution_state": 3}),
    ("comm_open", {"comm_id": [1], "target_name": None, "data": 5}),
]:
    _kernel.session.send(_kernel.iopub_socket, _type, _content, _parent)


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
