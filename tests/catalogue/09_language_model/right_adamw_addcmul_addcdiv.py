"""AdamW with the out-of-place torch.mul / addcmul / addcdiv forms and named bias corrections."""
# %% answer adamw
def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW step for one tensor: (new param, new exp_avg, new exp_avg_sq); step counts from 1."""
    beta1, beta2 = betas
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    decayed = torch.mul(param, 1 - lr * weight_decay)  # decoupled weight decay
    exp_avg = torch.add(torch.mul(exp_avg, beta1), grad, alpha=1 - beta1)
    exp_avg_sq = torch.addcmul(torch.mul(exp_avg_sq, beta2), grad, grad, value=1 - beta2)
    denom = (exp_avg_sq / bias_correction2).sqrt() + eps
    new_param = torch.addcdiv(decayed, exp_avg / bias_correction1, denom, value=-lr)
    return new_param, exp_avg, exp_avg_sq
