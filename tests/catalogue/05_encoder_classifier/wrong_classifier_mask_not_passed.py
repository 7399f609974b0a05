"""The classifier computes the padding mask but never passes it to the blocks."""
# expect: looks at padding
# %% patch classifier
# -             raise ValueError(f"pooling must be 'cls' or 'mean', got pooling={pooling!r}")
# -         self.pooling, self.pad_id, self.max_len = pooling, pad_id, max_len
# +             raise ValueError(f"unknown pooling {pooling!r}")
# +         self.pooling, self.pad_id = pooling, pad_id

# -         self.dropout = nn.Dropout(dropout)

# -         self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

# -         batch, length = token_ids.shape
# -         if length > self.max_len:
# -             raise ValueError(f"sequence length {length} exceeds max_len={self.max_len}")
# +         B = token_ids.shape[0]

# -             x = torch.cat([self.cls_token.expand(batch, -1, -1), x], dim=1)  # (B, 1 + L, E)
# -             key_padding_mask = torch.cat([key_padding_mask.new_zeros(batch, 1), key_padding_mask], dim=1)
# -         positions = torch.arange(x.shape[1], device=x.device)
# -         x = self.dropout(x + self.position_embedding(positions))
# +             x = torch.cat([self.cls_token.expand(B, -1, -1), x], dim=1)
# +             key_padding_mask = torch.cat([key_padding_mask.new_zeros(B, 1), key_padding_mask], dim=1)
# +         x = x + self.position_embedding(torch.arange(x.shape[1], device=x.device))

# -             x = block(x, key_padding_mask=key_padding_mask)
# -         x = self.final_norm(x)
# +             x = block(x)
