"""AdamW without the bias correction of m and v."""
# expect: no bias correction
# %% answer adamw
def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW step for one tensor: (new param, new exp_avg, new exp_avg_sq); step counts from 1."""
    beta1, beta2 = betas
    param = param * (1 - lr * weight_decay)  # decoupled decay: on the weights, not in the gradient
    exp_avg = beta1 * exp_avg + (1 - beta1) * grad
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
    m_hat = exp_avg
    v_hat = exp_avg_sq
    return param - lr * m_hat / (v_hat.sqrt() + eps), exp_avg, exp_avg_sq
