"""sample takes the arg-max instead of drawing from the distribution."""
# expect: greedy arg-max instead of a draw
# %% patch sample
# -         next_token = torch.multinomial(probs, 1, generator=generator)  # (B, 1)
# +         next_token = probs.argmax(-1, keepdim=True)  # (B, 1)
