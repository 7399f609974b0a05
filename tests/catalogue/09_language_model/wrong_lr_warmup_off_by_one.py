"""The warm-up starts at 0: step / warmup instead of (step + 1) / warmup."""
# expect: warm-up off by one
# %% patch lr_schedule
# -         return max_lr * (step + 1) / warmup_steps
# +         return max_lr * step / warmup_steps
