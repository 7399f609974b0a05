"""The memory padding mask is inverted before the cross-attention (True taken as: read this patch)."""
# expect: memory_key_padding_mask is inverted
# %% patch captioner
# -                       memory_key_padding_mask=memory_key_padding_mask)
# +                       memory_key_padding_mask=None if memory_key_padding_mask is None else ~memory_key_padding_mask)
