"""Additive attention ignores src_mask: padding gets attention."""
# expect: source padding is not masked
# %% answer additive_attention
def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):
    """Bahdanau attention: v . tanh(W1 s + W2 h_j), softmax over j; returns (context, weights)."""
    query = dec_hidden @ W1.T  # (B, A)
    keys = enc_outputs @ W2.T  # (B, S, A)
    scores = torch.tanh(query[:, None, :] + keys) @ v  # (B, S)
    weights = torch.softmax(scores, dim=-1)  # over source positions
    context = (weights[:, :, None] * enc_outputs).sum(dim=1)  # (B, H_enc)
    return context, weights
