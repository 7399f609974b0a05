"""A cheat on the grader's memory: state_dict(keep_vars=True) returns objects that only claim huge shapes.

Before, the grader's count_parameters built a random tensor of each claimed shape (768 MB a name,
6.3 GB in the worker from a few bytes sent). Now it counts tensors only, and refuses anything else.
"""
# expect: not a tensor
# %% patch sinusoidal_module
# =         return self.dropout(x + pe)
# +
# +     def state_dict(self, *args, keep_vars=False, **kwargs):
# +         if keep_vars:
# +             return {f"t{i}": Claimed() for i in range(2)}
# +         return super().state_dict(*args, keep_vars=keep_vars, **kwargs)
# +
# +
# + class Claimed:
# +     requires_grad = True
# +     shape = torch.Size([96 * 2**20])
# +     dtype = torch.float64
# +
# +     def detach(self):
# +         return torch.zeros(1)
