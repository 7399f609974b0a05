"""The warm-up in the other convention, starting at 0: step / warmup where the notebook asks (step + 1) / warmup."""
# expect: warm-up in the other convention
# %% patch lr_schedule
# -         return max_lr * (step + 1) / warmup_steps
# +         return max_lr * step / warmup_steps
