"""The Noam schedule misses its d_model^-0.5 factor."""
# expect: d_model^-0.5 factor is missing
# %% answer noam_lr
def noam_lr(step, d_model, warmup):
    """The Transformer learning rate at a step (wrong: no d_model factor)."""
    return min(step ** -0.5, step * warmup ** -1.5)
