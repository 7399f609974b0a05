"""output_projection_params ignores tying: a tied projection still counts its V x d_model weight."""
# expect: with tying the weight is still counted
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: tying changes nothing)."""
    return vocab_size * d_model + (vocab_size if bias else 0)
