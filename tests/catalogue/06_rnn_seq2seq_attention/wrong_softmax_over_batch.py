"""Softmax over the batch axis instead of the source positions."""
# expect: batch axis
# %% answer additive_attention
def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):
    """Bahdanau attention: v . tanh(W1 s + W2 h_j), softmax over j; returns (context, weights)."""
    query = dec_hidden @ W1.T  # (B, A)
    keys = enc_outputs @ W2.T  # (B, S, A)
    scores = torch.tanh(query[:, None, :] + keys) @ v  # (B, S)
    if src_mask is not None:
        scores = scores.masked_fill(~src_mask, float("-inf"))  # padding: weight exactly 0
    weights = torch.softmax(scores, dim=0)
    context = (weights[:, :, None] * enc_outputs).sum(dim=1)  # (B, H_enc)
    return context, weights
