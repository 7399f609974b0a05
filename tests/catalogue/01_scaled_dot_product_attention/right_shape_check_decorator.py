"""sdpa behind a shape-checking decorator written with functools.wraps, and a small result class whose __repr__
names its own class (self.__class__.__name__): ordinary Python the rule must leave alone."""
# %% answer sdpa
import functools


def checks_shapes(fn):
    """Fail early, naming the shapes, when q and k disagree on d_k or k and v on the number of keys."""

    @functools.wraps(fn)
    def checked(q, k, v, mask=None):
        if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
            raise ValueError(f"q {tuple(q.shape)}, k {tuple(k.shape)} and v {tuple(v.shape)} do not fit")
        return fn(q, k, v, mask)

    return checked


class Scaled:
    """The scale 1/sqrt(d_k), with a readable repr."""

    def __init__(self, d_k):
        self.value = 1.0 / math.sqrt(d_k)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.value:.4f})"


@checks_shapes
def scaled_dot_product_attention(q, k, v, mask=None):
    scale = Scaled(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale.value  # (..., L, S)
    if mask is not None:
        scores = scores.masked_fill(~mask.to(torch.bool), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.to(torch.bool).any(dim=-1, keepdim=True), 0.0)
    return weights @ v, weights
