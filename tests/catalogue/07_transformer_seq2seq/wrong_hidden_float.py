"""swiglu_hidden_size returns the right size as a float."""
# expect: Python int
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: a float)."""
    return float(multiple_of * max(1, (16 * d_model + 3 * multiple_of) // (6 * multiple_of)))
