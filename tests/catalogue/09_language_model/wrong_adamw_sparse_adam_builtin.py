"""AdamW through torch.optim.SparseAdam on grad.to_sparse(): the decay applied first, the state loaded, eps
rescaled by sqrt(1 - beta2^t) so that SparseAdam's step is AdamW's. Right values, but it is Adam: refused while
the rule is checked."""
# expect: Write the update yourself
# %% answer adamw
def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    beta1, beta2 = betas
    p = nn.Parameter(param.detach() * (1 - lr * weight_decay))
    opt = torch.optim.SparseAdam([p], lr=lr, betas=betas, eps=eps * (1 - beta2**step) ** 0.5)
    opt.state[p] = {"step": step - 1, "exp_avg": exp_avg.clone(), "exp_avg_sq": exp_avg_sq.clone()}
    p.grad = grad.to_sparse()
    opt.step()
    state = opt.state[p]
    return p.detach(), state["exp_avg"], state["exp_avg_sq"]
