"""Noam schedule written piecewise (warm-up branch and decay branch)."""
# %% answer noam_lr
def noam_lr(step, d_model, warmup):
    """The Transformer learning rate at a step (counted from 1)."""
    scale = 1.0 / math.sqrt(d_model)
    if step < warmup:
        return scale * step / warmup ** 1.5
    return scale / math.sqrt(step)
