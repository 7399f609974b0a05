"""AdamW written as PyTorch does: a bias-corrected step size and denominator."""
# %% answer adamw
def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW step, in the step-size form."""
    b1, b2 = betas
    new_m = torch.lerp(exp_avg, grad, 1 - b1)
    new_v = exp_avg_sq * b2 + (1 - b2) * grad.square()
    step_size = lr / (1 - b1 ** step)
    denom = new_v.sqrt() / math.sqrt(1 - b2 ** step) + eps
    return param - lr * weight_decay * param - step_size * new_m / denom, new_m, new_v
