"""run_decoder starts every step from enc_final instead of threading the state."""
# expect: each step gets the state returned by the previous one
# %% patch run_decoder
# - def run_decoder(decoder, enc_outputs, enc_final, src_keep, bos_id, steps, targets=None,
# + def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,

# -         logits, hidden, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_keep)
# +         logits, _, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_mask)
