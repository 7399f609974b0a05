"""clip_grad_global behind a decorator written with functools.wraps that checks its inputs; the global norm
summed in float64 with math.fsum-free torch code: the rule leaves ordinary decorators alone."""
# %% answer clip_grad
import functools


def checked_gradients(fn):
    """Refuse a non-positive max_norm, naming it."""

    @functools.wraps(fn)
    def run(grads, max_norm):
        if max_norm <= 0:
            raise ValueError(f"max_norm must be positive, got {max_norm}")
        return fn(list(grads), max_norm)

    return run


@checked_gradients
def clip_grad_global(grads, max_norm):
    if not grads:
        return [], torch.tensor(0.0)
    squares = torch.stack([(g.double() ** 2).sum() for g in grads])
    total_norm = squares.sum().sqrt().to(grads[0].dtype)
    scale = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    return [g * scale for g in grads], total_norm
