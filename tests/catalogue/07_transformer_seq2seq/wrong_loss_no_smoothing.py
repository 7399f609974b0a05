"""label_smoothing is ignored."""
# expect: label_smoothing is ignored
# %% answer seq2seq_loss
def seq2seq_loss(logits, targets, pad_id, label_smoothing=0.0):
    """Token-level cross-entropy (wrong: no label smoothing)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=pad_id)
