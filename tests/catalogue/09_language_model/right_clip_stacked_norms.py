"""clip_grad_global as clip_grad_norm_ computes it: the norm of the stacked per-tensor norms, a clamped clip coefficient."""
# %% answer clip_grad
def clip_grad_global(grads, max_norm):
    """(gradients rescaled together to a global norm of at most max_norm, the global norm before)."""
    if not grads:  # clip_grad_norm_ with no gradients: norm 0
        return [], torch.tensor(0.0)
    per_tensor = torch.stack([torch.linalg.vector_norm(g, 2.0) for g in grads])
    total_norm = torch.linalg.vector_norm(per_tensor, 2.0)  # = the norm of everything concatenated
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    return [g * clip_coef_clamped for g in grads], total_norm
