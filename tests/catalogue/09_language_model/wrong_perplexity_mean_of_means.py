"""Perplexity from the mean of the batches' mean losses: every batch weighs the same."""
# expect: the mean of the batches' means
# %% patch perplexity
# -                                  ignore_index=pad_id, reduction="sum")
# +                                  ignore_index=pad_id)

# -         count += int((targets != pad_id).sum())
# +         count += 1
