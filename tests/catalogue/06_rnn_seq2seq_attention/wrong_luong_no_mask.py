"""Luong attention ignores src_mask: padding gets attention."""
# expect: source padding is not masked
# %% answer multiplicative_attention
def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):
    """Luong 'general' attention: s^T W h_j, softmax over j; returns (context, weights)."""
    query = dec_hidden @ W  # (B, H_enc): s^T W, one vector per sentence
    scores = torch.bmm(enc_outputs, query[:, :, None])[:, :, 0]  # (B, S)
    weights = torch.softmax(scores, dim=-1)
    context = torch.bmm(weights[:, None, :], enc_outputs)[:, 0]  # (B, H_enc)
    return context, weights
