"""The causal mask is a float 0/1 matrix instead of a boolean one."""
# expect: boolean tensor
# %% patch causal_mask
# -     return torch.ones(size, size, dtype=torch.bool, device=device).tril()  # (size, size)
# +     return torch.tril(torch.ones(size, size, device=device))
