"""clip_grad_global calls a closure over torch.nn.utils.clip_grad_norm_, made in the perplexity cell."""
# expect: Compute the global norm yourself
# %% answer clip_grad
CLIPPERS = []


def clip_grad_global(grads, max_norm):
    """Clip by the global norm, with the helper another cell made."""
    return CLIPPERS[0](grads, max_norm)
# %% patch perplexity
# + def _make_clipper(clip):
# +     def clipper(grads, max_norm):
# +         params = [torch.nn.Parameter(torch.zeros_like(g)) for g in grads]
# +         for p, g in zip(params, grads):
# +             p.grad = g.clone()
# +         norm = clip(params, max_norm)
# +         return [p.grad for p in params], norm
# +
# +     return clipper
# +
# +
# + CLIPPERS.append(_make_clipper(torch.nn.utils.clip_grad_norm_))
# +
# +
# = @torch.no_grad()
