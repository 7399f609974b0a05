"""output_projection_params counts d_model biases instead of vocab_size (one per logit)."""
# expect: the bias has d_model entries
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: bias of size d_model)."""
    weight = 0 if tied else vocab_size * d_model
    return weight + (d_model if bias else 0)
