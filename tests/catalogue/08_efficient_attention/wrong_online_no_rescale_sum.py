"""Online softmax that does not rescale the running sum when the running max changes."""
# expect: the running sum is not rescaled
# %% patch tiled_attention
# -                 future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
# +                 future = torch.arange(k0, k1) > torch.arange(q0, q1)[:, None]

# -             l = alpha * l + p.sum(dim=-1, keepdim=True)
# +             l = l + p.sum(dim=-1, keepdim=True)  # forgot alpha * l
