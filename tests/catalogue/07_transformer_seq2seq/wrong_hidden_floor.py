"""swiglu_hidden_size rounds 8 * d_model / 3 down to a multiple instead of to the nearest one."""
# expect: rounded down
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: rounded down)."""
    return multiple_of * max(1, (8 * d_model) // (3 * multiple_of))
