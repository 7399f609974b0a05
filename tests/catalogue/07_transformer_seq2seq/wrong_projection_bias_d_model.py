"""output_projection_params counts d_model biases instead of vocab_size (one per logit)."""
# expect: the bias has d_model entries
# %% patch output_projection_params
# -     return weight + (vocab_size if bias else 0)  # one bias per vocabulary entry
# +     return weight + (d_model if bias else 0)
