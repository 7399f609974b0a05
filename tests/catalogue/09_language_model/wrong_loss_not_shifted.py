"""The loss compares the logits at position t with the token at t (no shift)."""
# expect: the targets are not shifted
# %% answer lm_loss
def lm_loss(logits, tokens, pad_id):
    """Mean next-token cross-entropy: logits[:, t] predicts tokens[:, t + 1]; padding targets ignored."""
    V = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, V),  # (B*(T-1), V): positions 0 .. T-2
                           tokens.reshape(-1),  # (B*(T-1),): their next tokens
                           ignore_index=pad_id)
