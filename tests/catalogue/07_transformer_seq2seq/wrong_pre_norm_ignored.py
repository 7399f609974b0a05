"""norm_first is ignored: the block always computes post-norm."""
# expect: norm_first is ignored
# %% patch decoder_block
# -         self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
# -         self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))  # one per sub-layer
# +         self.linear1 = nn.Linear(d_model, d_ff)
# +         self.linear2 = nn.Linear(d_ff, d_model)
# +         self.norm1 = nn.LayerNorm(d_model)
# +         self.norm2 = nn.LayerNorm(d_model)
# +         self.norm3 = nn.LayerNorm(d_model)

# -         self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(dropout) for _ in range(3))
# +         self.dropout1 = nn.Dropout(dropout)  # after each sub-layer
# +         self.dropout2 = nn.Dropout(dropout)
# +         self.dropout3 = nn.Dropout(dropout)

# -         for norm, sublayer in ((self.norm1, self_block), (self.norm2, cross_block), (self.norm3, ff_block)):
# -             # pre-norm: x + Sublayer(LayerNorm(x)); post-norm (the paper): LayerNorm(x + Sublayer(x))
# -             x = x + sublayer(norm(x)) if self.norm_first else norm(x + sublayer(x))
# +         if False:  # pre-norm: x + Sublayer(LayerNorm(x))
# +             x = x + self_block(self.norm1(x))
# +             x = x + cross_block(self.norm2(x))
# +             x = x + ff_block(self.norm3(x))
# +         else:  # post-norm: LayerNorm(x + Sublayer(x))
# +             x = self.norm1(x + self_block(x))
# +             x = self.norm2(x + cross_block(x))
# +             x = self.norm3(x + ff_block(x))
