"""output_projection_params reads tied the wrong way round: the weight is counted only when tied."""
# expect: tied and untied are swapped
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters of the output projection (wrong: tied and untied swapped)."""
    weight = vocab_size * d_model if tied else 0
    return weight + (vocab_size if bias else 0)
