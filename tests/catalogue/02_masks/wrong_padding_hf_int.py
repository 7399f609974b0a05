"""Hugging Face's convention: an integer attention_mask with 1 = keep."""
# expect: Hugging Face
# %% answer key_padding_mask
def key_padding_mask(token_ids, pad_id):
    return (token_ids != pad_id).long()
