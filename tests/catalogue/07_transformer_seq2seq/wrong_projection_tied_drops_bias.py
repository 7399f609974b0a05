"""output_projection_params returns 0 when tied, dropping the projection's own bias."""
# expect: tying also removes the bias
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: tying removes the bias too)."""
    if tied:
        return 0
    return vocab_size * d_model + (vocab_size if bias else 0)
