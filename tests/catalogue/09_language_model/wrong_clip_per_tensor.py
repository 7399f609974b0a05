"""Each gradient is clipped by its own norm instead of the global norm."""
# expect: each tensor clipped on its own
# %% answer clip_grad
def clip_grad_global(grads, max_norm):
    """(gradients rescaled together to a global norm of at most max_norm, the global norm before)."""
    total_norm = torch.sqrt(sum((g.double() ** 2).sum() for g in grads)).to(grads[0].dtype)
    return [g * torch.clamp(max_norm / (g.norm() + 1e-6), max=1.0) for g in grads], total_norm
