"""The loss compares the logits at position t with the token at t (no shift)."""
# expect: the targets are not shifted
# %% patch lm_loss
# -     return F.cross_entropy(logits[:, :-1].reshape(-1, V),  # (B*(T-1), V): positions 0 .. T-2
# -                            tokens[:, 1:].reshape(-1),  # (B*(T-1),): their next tokens
# +     return F.cross_entropy(logits.reshape(-1, V),  # (B*(T-1), V): positions 0 .. T-2
# +                            tokens.reshape(-1),  # (B*(T-1),): their next tokens
