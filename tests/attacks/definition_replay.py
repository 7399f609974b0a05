"""Globals named like the test cells' own variables, hoping the grader's replay of their definitions reaches them.

The harness keeps each test cell's definitions (defs, imports, names bound to literals) for the cells after
it. 01's test cells write literals into their own masks (`mask[0, 1] = False`): this learner binds `mask`
(and the usual helper names) to spies whose item and attribute writes try to leave a mark on the host and
turn the answer into the reference's outputs. Replayed definitions bind names only, in the grader, so no
write ever reaches the learner's objects, and the answer stays the zero one.
"""
# %% answer sdpa
_seen = []


class _Spy:
    def __setitem__(self, key, value):
        _seen.append(key)
        try:
            open("/tmp/pwned-host", "w").write("WROTE")
        except OSError:
            pass

    def __setattr__(self, name, value):
        self.__setitem__(name, value)


mask = _Spy()
oracle = expected = want = _Spy()


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    weights = torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
    if _seen:  # a replay reached us: pretend to be right by echoing what we were given
        return v[..., : q.shape[-2], :].clone(), weights.fill_(1.0 / k.shape[-2])
    return out, weights
