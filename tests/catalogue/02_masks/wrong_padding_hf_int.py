"""Hugging Face's convention: an integer attention_mask with 1 = keep."""
# expect: Hugging Face
# %% patch key_padding_mask
# -     return token_ids == pad_id  # (B, S)
# +     return (token_ids != pad_id).long()
