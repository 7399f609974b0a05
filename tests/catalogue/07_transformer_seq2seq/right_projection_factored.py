"""output_projection_params as vocab_size * (columns): d_model + 1 with bias, untied; 1 or 0 tied."""
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """One row per vocabulary entry: its weight row (unless tied) and its bias."""
    per_row = (0 if tied else d_model) + int(bool(bias))
    return vocab_size * per_row
