"""The logits are multiplied by the temperature instead of divided."""
# expect: multiplied by the temperature
# %% patch sampling_probs
# -     logits = logits / temperature
# +     logits = logits * temperature
