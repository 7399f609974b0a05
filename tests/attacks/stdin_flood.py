"""Read the relay's rules in README and the diff, then flood stdin: 7 MiB input requests nobody asked for, before and during the grader's calls."""
# %% answer sdpa
_kernel = get_ipython().kernel
_prompt = "x" * (7 * 2**20)  # under the 8 MiB a call back may carry


def _flood(n):
    for _ in range(n):
        _kernel.session.send(_kernel.stdin_socket, "input_request", {"prompt": _prompt, "password": False},
                             _kernel.get_parent("shell"), ident=_kernel._parent_ident["shell"])


_flood(200)  # while the notebook runs: nobody reads stdin then


def scaled_dot_product_attention(q, k, v, mask=None):
    _flood(20)  # during a call: the first is answered (as an error), the rest must not pile up
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
