"""Luong attention uses W transposed: s^T W^T h_j."""
# expect: W is transposed
# %% answer multiplicative_attention
def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):
    """Luong 'general' attention: s^T W h_j, softmax over j; returns (context, weights)."""
    query = dec_hidden @ W.T
    scores = torch.bmm(enc_outputs, query[:, :, None])[:, :, 0]  # (B, S)
    if src_mask is not None:
        scores = scores.masked_fill(~src_mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = torch.bmm(weights[:, None, :], enc_outputs)[:, 0]  # (B, H_enc)
    return context, weights
