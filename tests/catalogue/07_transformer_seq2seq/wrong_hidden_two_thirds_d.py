"""swiglu_hidden_size takes 2/3 of d_model instead of 2/3 of 4 * d_model."""
# expect: 2/3 * d_model instead of 2/3 * 4 * d_model
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: 2/3 * d_model)."""
    return multiple_of * max(1, round(2 * d_model / 3 / multiple_of))
