"""The memory is always pooled: the decoder cross-attends to one vector, not to every patch."""
# expect: cross-attends to the pooled vector, not to every patch
# %% patch captioner
# -         return x.mean(dim=1, keepdim=True) if self.memory == "pooled" else x  # (B, 1, E) or (B, N, E)
# +         return x.mean(dim=1, keepdim=True)  # (B, 1, E)
