"""Luong attention ignores W: a plain dot product s . h_j."""
# expect: W is ignored
# %% patch multiplicative_attention
# - def multiplicative_attention(dec_hidden, enc_outputs, W, src_keep=None):
# + def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):

# -     query = dec_hidden @ W  # (B, H_enc): s^T W, one vector per sentence
# +     query = dec_hidden  # (B, H)

# -     if src_keep is not None:
# -         scores = scores.masked_fill(~src_keep, float("-inf"))
# +     if src_mask is not None:
# +         scores = scores.masked_fill(~src_mask, float("-inf"))
