"""The loss averages over padding targets too."""
# expect: padding counted in the loss
# %% patch lm_loss
# -                            ignore_index=pad_id)
# +                            )
