"""The decoder step queries the attention with the new state instead of the previous one."""
# %% patch decoder_step
# -     def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_keep):
# +     def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):

# =         embedded = self.embedding(prev_tokens)  # (B, E)
# +         hidden = self.cell(torch.cat([embedded, enc_final], dim=-1), hidden)

# -             context, weights = self.attention(hidden, enc_outputs, src_keep)  # query: s_{t-1}
# -         hidden = self.cell(torch.cat([embedded, context], dim=-1), hidden)  # (B, H)
# -         logits = self.out(torch.cat([hidden, context, embedded], dim=-1))  # (B, V)
# -         return logits, hidden, weights
# +             context, weights = self.attention(hidden, enc_outputs, src_mask)
# +         return self.out(torch.cat([hidden, context, embedded], dim=-1)), hidden, weights
