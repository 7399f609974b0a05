"""swiglu_hidden_size keeps the ReLU layer's width 4 * d_model: the counts are not matched (1.5x)."""
# expect: the hidden size is not reduced
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: 4 * d_model)."""
    return 4 * d_model
