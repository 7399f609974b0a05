"""The padding mask is inverted: True at the real tokens."""
# expect: inverted
# %% answer key_padding_mask
def key_padding_mask(token_ids, pad_id):
    return token_ids != pad_id
