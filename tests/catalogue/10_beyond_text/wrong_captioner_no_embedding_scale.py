"""The word embeddings are not multiplied by sqrt(d_model) before the positions are added."""
# expect: not scaled by sqrt(d_model)
# %% patch captioner
# -         y = self.tgt_embed(tgt_in) * math.sqrt(self.d_model) + self.tgt_pe[:T]  # (B, T, E)
# +         y = self.tgt_embed(tgt_in) + self.tgt_pe[:T]  # (B, T, E)
