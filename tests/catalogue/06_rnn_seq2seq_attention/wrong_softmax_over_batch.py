"""Softmax over the batch axis instead of the source positions."""
# expect: batch axis
# %% patch additive_attention
# - def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_keep=None):
# + def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):

# -     if src_keep is not None:
# -         scores = scores.masked_fill(~src_keep, float("-inf"))  # padding: weight exactly 0
# -     weights = torch.softmax(scores, dim=-1)  # over source positions
# +     if src_mask is not None:
# +         scores = scores.masked_fill(~src_mask, float("-inf"))  # padding: weight exactly 0
# +     weights = torch.softmax(scores, dim=0)
