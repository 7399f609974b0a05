"""run_decoder feeds the targets even when teacher_forcing is 0."""
# expect: still feeds the targets
# %% patch run_decoder
# - def run_decoder(decoder, enc_outputs, enc_final, src_keep, bos_id, steps, targets=None,
# + def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,

# -         logits, hidden, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_keep)
# +         logits, hidden, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_mask)

# -         if targets is not None and teacher_forcing > 0:
# -             use_truth = torch.rand(B, generator=generator) < teacher_forcing  # one coin per sentence
# +         if targets is not None:
# +             use_truth = torch.ones(B, dtype=torch.bool)
