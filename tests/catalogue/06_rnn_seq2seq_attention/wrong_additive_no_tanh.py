"""Additive attention without the tanh: v . (W1 s + W2 h_j)."""
# expect: tanh is missing
# %% patch additive_attention
# - def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_keep=None):
# + def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):

# -     scores = torch.tanh(query[:, None, :] + keys) @ v  # (B, S)
# -     if src_keep is not None:
# -         scores = scores.masked_fill(~src_keep, float("-inf"))  # padding: weight exactly 0
# +     scores = (query[:, None, :] + keys) @ v  # (B, S)
# +     if src_mask is not None:
# +         scores = scores.masked_fill(~src_mask, float("-inf"))  # padding: weight exactly 0
