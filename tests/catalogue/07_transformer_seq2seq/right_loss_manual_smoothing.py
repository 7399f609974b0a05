"""Label-smoothed loss written out with log_softmax and a padding mask."""
# %% answer seq2seq_loss
def seq2seq_loss(logits, targets, pad_id, label_smoothing=0.0):
    """Token-level cross-entropy, padding ignored, optional label smoothing; a scalar."""
    logp = logits.log_softmax(-1)  # (B, T, V)
    nll = -logp.gather(-1, targets.clamp_min(0).unsqueeze(-1)).squeeze(-1)  # (B, T)
    uniform = -logp.mean(-1)  # (B, T): cross-entropy against the uniform distribution
    per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
    real = targets != pad_id
    return per_token[real].sum() / real.sum()
