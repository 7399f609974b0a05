"""Additive attention with einsum and a large negative fill instead of -inf."""
# %% answer additive_attention
def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):
    """Bahdanau attention: v . tanh(W1 s + W2 h_j), softmax over j; returns (context, weights)."""
    hidden = torch.tanh(torch.einsum("ad,bd->ba", W1, dec_hidden)[:, None, :]
                        + torch.einsum("ae,bse->bsa", W2, enc_outputs))  # (B, S, A)
    scores = torch.einsum("bsa,a->bs", hidden, v)
    if src_mask is not None:
        scores = torch.where(src_mask, scores, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=1)
    return torch.einsum("bs,bse->be", weights, enc_outputs), weights
