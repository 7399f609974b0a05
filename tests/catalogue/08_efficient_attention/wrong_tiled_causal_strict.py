"""Causal tiles mask the diagonal too (j < i instead of j <= i): a query cannot see itself."""
# expect: query i sees keys j <= i
# %% patch tiled_attention
# -             if causal and k1 - 1 > q0:  # the tile crosses the diagonal: block key j > query i
# -                 future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
# +             if causal and k1 - 1 >= q0:
# +                 future = torch.arange(k0, k1) >= torch.arange(q0, q1)[:, None]  # off by one
