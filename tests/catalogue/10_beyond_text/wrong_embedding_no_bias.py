"""The patch embedding multiplies by the weight but forgets the bias."""
# expect: the bias is missing
# %% patch patch_embedding
# -         return patchify(images, self.patch_size) @ weight.T + self.proj.bias  # (B, N, E)
# +         return patchify(images, self.patch_size) @ weight.T  # (B, N, E)
