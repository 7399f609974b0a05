"""Additive attention treats True in src_mask as padding."""
# expect: mask is inverted
# %% patch additive_attention
# - def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_keep=None):
# + def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):

# -     if src_keep is not None:
# -         scores = scores.masked_fill(~src_keep, float("-inf"))  # padding: weight exactly 0
# +     if src_mask is not None:
# +         scores = scores.masked_fill(src_mask, float("-inf"))  # padding: weight exactly 0
