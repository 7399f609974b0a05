"""The causal mask is a float 0/1 matrix instead of a boolean one."""
# expect: boolean tensor
# %% answer causal_mask
def causal_mask(size, device=None):
    return torch.tril(torch.ones(size, size, device=device))
