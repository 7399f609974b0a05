"""The padding mask is inverted: True at the real tokens."""
# expect: inverted
# %% patch key_padding_mask
# -     return token_ids == pad_id  # (B, S)
# +     return token_ids != pad_id
