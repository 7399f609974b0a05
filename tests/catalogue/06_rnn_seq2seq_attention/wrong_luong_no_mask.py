"""Luong attention ignores src_mask: padding gets attention."""
# expect: source padding is not masked
# %% patch multiplicative_attention
# - def multiplicative_attention(dec_hidden, enc_outputs, W, src_keep=None):
# + def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):

# -     if src_keep is not None:
# -         scores = scores.masked_fill(~src_keep, float("-inf"))
