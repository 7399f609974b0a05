"""Causal tile skipping off by one at the block boundary (k0 >= q1 - 1 skips a tile the last query needs)."""
# expect: query i sees keys j <= i
# %% patch tiled_attention
# -             if causal and k0 > q1 - 1:
# +             if causal and k0 >= q1 - 1:  # off by one: key q1 - 1 is still needed by query q1 - 1

# -                 future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
# +                 future = torch.arange(k0, k1) > torch.arange(q0, q1)[:, None]
