"""The final LayerNorm is created but never applied before the pooling."""
# expect: the final LayerNorm (norm) is not applied
# %% patch vit
# -         x = self.norm(x)
