"""lr_at with np.interp: the warm-up as a line through (-1, 0) and (warmup - 1, max_lr), the cosine progress clamped by interp."""
# %% answer lr_schedule
def lr_at(step, max_lr, min_lr, warmup_steps, total_steps):
    """Linear warm-up to max_lr over warmup_steps steps, then cosine decay to min_lr at total_steps."""
    if step < warmup_steps:
        # max_lr * (step + 1) / warmup: 0 at step -1, max_lr at the last warm-up step
        return float(np.interp(step, [-1, warmup_steps - 1], [0.0, max_lr]))
    progress = float(np.interp(step, [warmup_steps, total_steps], [0.0, 1.0]))  # stays 1 after total_steps
    return float(min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress)))
