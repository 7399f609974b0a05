"""lr_at with the warm-up as a fraction and clipping from one concatenated vector."""
# %% answer lr_schedule
def lr_at(step, max_lr, min_lr, warmup_steps, total_steps):
    """Warm-up then cosine, written from the fraction done."""
    if step >= warmup_steps:
        done = 1.0 if step >= total_steps else (step - warmup_steps) / (total_steps - warmup_steps)
        return float(min_lr + (max_lr - min_lr) * (math.cos(math.pi * done) + 1) / 2)
    return float(max_lr * ((step + 1) / warmup_steps))
# %% answer clip_grad
def clip_grad_global(grads, max_norm):
    """Global norm of all gradients as one vector, one common scale."""
    if len(grads) == 0:
        return [], torch.zeros(())
    total = torch.linalg.vector_norm(torch.cat([g.reshape(-1) for g in grads]))
    factor = min(1.0, max_norm / (float(total) + 1e-6))
    return [g.mul(factor) for g in grads], total
