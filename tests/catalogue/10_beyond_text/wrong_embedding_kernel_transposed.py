"""The kernel flattened after swapping its rows and columns: (channel, column, row) order."""
# expect: the kernel's rows and columns are swapped
# %% patch patch_embedding
# -         weight = self.proj.weight.flatten(1)  # (E, C*p*p), flattened in patchify's (channel, row, column) order
# +         weight = self.proj.weight.transpose(-1, -2).flatten(1)  # (E, C*p*p)
