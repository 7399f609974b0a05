"""The warm-up starts at 0: step / warmup instead of (step + 1) / warmup."""
# expect: warm-up off by one
# %% answer lr_schedule
def lr_at(step, max_lr, min_lr, warmup_steps, total_steps):
    """Linear warm-up to max_lr over warmup_steps steps, then cosine decay to min_lr at total_steps."""
    if step < warmup_steps:
        return max_lr * step / warmup_steps
    if step > total_steps:
        return min_lr
    progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
    return min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress))
