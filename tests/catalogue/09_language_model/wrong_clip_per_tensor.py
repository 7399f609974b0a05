"""Each gradient is clipped by its own norm instead of the global norm."""
# expect: each tensor clipped on its own
# %% patch clip_grad
# -     scale = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
# -     return [g * scale for g in grads], total_norm
# +     return [g * torch.clamp(max_norm / (g.norm() + 1e-6), max=1.0) for g in grads], total_norm
