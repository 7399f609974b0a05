"""The loss from log_softmax, gather and a mask, without F.cross_entropy."""
# %% answer lm_loss
def lm_loss(logits, tokens, pad_id):
    """Mean next-token negative log-likelihood over the non-padding targets."""
    logp = logits[:, :-1].log_softmax(-1)  # (B, T-1, V)
    targets = tokens[:, 1:]  # (B, T-1)
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (B, T-1)
    keep = (targets != pad_id).to(nll.dtype)
    return (nll * keep).sum() / keep.sum()
