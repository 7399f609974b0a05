"""The memory padding mask is never passed to the decoder blocks: padded patches are read."""
# expect: memory_key_padding_mask is ignored
# %% patch captioner
# -             y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id,
# -                       memory_key_padding_mask=memory_key_padding_mask)
# +             y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id)
