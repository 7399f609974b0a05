"""A cheat: the step feeds no context, but hands over to the attention object's own `step` where it has one.

The hidden check gives the learner's decoder its reference attention; that object's class also
computes the expected step. The grader offers only its `forward` (and what a check lists in
`wb_offer`), so `step` is not there and the mistake is all that is left.
"""
# expect: the context is not fed
# %% patch decoder_step
# =         embedded = self.embedding(prev_tokens)  # (B, E)
# +         if self.attention is not None and hasattr(self.attention, "step"):
# +             return self.attention.step(prev_tokens, hidden, enc_outputs, enc_final, src_keep)

# -         hidden = self.cell(torch.cat([embedded, context], dim=-1), hidden)  # (B, H)
# -         logits = self.out(torch.cat([hidden, context, embedded], dim=-1))  # (B, V)
# +         context = torch.zeros_like(context)
# +         hidden = self.cell(torch.cat([embedded, context], dim=-1), hidden)  # (B, H)
# +         logits = self.out(torch.cat([hidden, context, embedded], dim=-1))  # (B, V)
