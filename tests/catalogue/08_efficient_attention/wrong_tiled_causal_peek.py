"""Causal tiles off by one the other way: query i also sees key i + 1."""
# expect: query i also sees key i + 1
# %% patch tiled_attention
# -             if causal and k0 > q1 - 1:
# +             if causal and k0 > q1:

# -             if causal and k1 - 1 > q0:  # the tile crosses the diagonal: block key j > query i
# -                 future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
# +             if causal:
# +                 future = torch.arange(k0, k1) > torch.arange(q0, q1)[:, None] + 1  # off by one

# -             p = torch.exp(s - m_new)  # (..., bq, bk)
# -             alpha = torch.exp(m - m_new)  # rescales what was summed under the old maximum
# +             p = torch.exp(s - m_new).nan_to_num(0.0)
# +             alpha = torch.exp(m - m_new).nan_to_num(0.0)
