"""The positions are added to the patches before the class token is prepended: it gets none."""
# expect: the class token gets no position
# %% patch vit
# -         x = self.patch_embed(images)  # (B, N, E)
# +         x = self.patch_embed(images)  # (B, N, E)
# +         if self.pos_embed is not None:
# +             x = x + self.pos_embed[:, -x.shape[1]:]  # the patch rows only

# -         if self.pos_embed is not None:
# -             x = x + self.pos_embed
