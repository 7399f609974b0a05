"""Luong attention projecting the encoder states first (W h_j), then a dot with s."""
# %% answer multiplicative_attention
def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):
    """Luong 'general' attention: s^T W h_j, softmax over j; returns (context, weights)."""
    keys = enc_outputs @ W.T  # (B, S, H_dec): W h_j
    scores = (keys * dec_hidden[:, None, :]).sum(-1)  # (B, S)
    if src_mask is not None:
        scores = scores.masked_fill(src_mask.logical_not(), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return (weights.unsqueeze(-1) * enc_outputs).sum(1), weights
