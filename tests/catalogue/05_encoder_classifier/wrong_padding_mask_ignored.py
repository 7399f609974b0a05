"""The key padding mask is not passed to the attention: padded keys are attended to."""
# expect: padding mask is ignored
# %% patch encoder_block
# -         activations = {"relu": F.relu, "gelu": F.gelu}
# -         if activation not in activations:
# -             raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
# -         self.activation = activations[activation]
# +         if activation not in ("relu", "gelu"):
# +             raise ValueError(f"unknown activation {activation!r}")
# +         self.activation = F.relu if activation == "relu" else F.gelu

# =
# +     def sa(self, h, key_padding_mask, attn_mask):
# +         return self.dropout1(self.self_attn(h, h, h, key_padding_mask=None, attn_mask=attn_mask, need_weights=False)[0])
# +
# +     def ff(self, h):
# +         return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))
# =     def forward(self, x, key_padding_mask=None, attn_mask=None):

# -         def attention(h):  # (B, L, d_model) -> (B, L, d_model)
# -             out = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
# -                                  need_weights=False)[0]
# -             return self.dropout1(out)
# -
# -         def feed_forward(h):  # (B, L, d_model) -> (B, L, d_model)
# -             return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))

# -             x = x + attention(self.norm1(x))
# -             x = x + feed_forward(self.norm2(x))
# +             x = x + self.sa(self.norm1(x), key_padding_mask, attn_mask)
# +             x = x + self.ff(self.norm2(x))

# -             x = self.norm1(x + attention(x))
# -             x = self.norm2(x + feed_forward(x))
# +             x = self.norm1(x + self.sa(x, key_padding_mask, attn_mask))
# +             x = self.norm2(x + self.ff(x))
