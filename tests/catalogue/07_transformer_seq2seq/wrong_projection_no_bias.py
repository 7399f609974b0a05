"""output_projection_params never counts the bias."""
# expect: the bias is never counted
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: bias ignored)."""
    return 0 if tied else vocab_size * d_model
