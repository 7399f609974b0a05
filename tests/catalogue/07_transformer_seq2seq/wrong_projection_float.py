"""output_projection_params returns a float (the right value, but not an exact int count)."""
# expect: dtype
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: a float)."""
    return float((0 if tied else vocab_size * d_model) + (vocab_size if bias else 0))
