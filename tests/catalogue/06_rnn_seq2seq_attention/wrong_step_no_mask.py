"""The decoder step does not pass src_mask to the attention."""
# expect: pass src_keep to the attention
# %% patch decoder_step
# -     def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_keep):
# +     def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):

# -             context, weights = self.attention(hidden, enc_outputs, src_keep)  # query: s_{t-1}
# +             context, weights = self.attention(hidden, enc_outputs)  # query: s_{t-1}
