"""The loss averages over padding positions too."""
# expect: padding positions are counted
# %% answer seq2seq_loss
def seq2seq_loss(logits, targets, pad_id, label_smoothing=0.0):
    """Token-level cross-entropy (wrong: padding counted)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           label_smoothing=label_smoothing)
