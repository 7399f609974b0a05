"""swiglu_hidden_size ignores multiple_of."""
# expect: multiple_of is ignored
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: multiple_of ignored)."""
    return (16 * d_model + 3) // 6
