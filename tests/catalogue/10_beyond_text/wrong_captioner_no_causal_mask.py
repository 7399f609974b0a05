"""The decoder blocks get no causal mask: each position sees the words after it."""
# expect: the decoder has no causal mask
# %% patch captioner
# -             y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id,
# +             y = block(y, memory, tgt_key_padding_mask=tgt_in == self.pad_id,
