"""The block normalises after the residual (post-norm) instead of before the sublayer."""
# expect: post-norm blocks
# %% patch decoder_block
# -         x = x + self.attn(self.norm1(x), cache)  # (B, T, E)
# -         return x + self.ffn(self.norm2(x))
# +         x = self.norm1(x + self.attn(x, cache))  # (B, T, E)
# +         return self.norm2(x + self.ffn(x))
