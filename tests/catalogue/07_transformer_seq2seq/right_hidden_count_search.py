"""swiglu_hidden_size by searching the multiples for the count 3 d h closest to 8 d² (ties to the larger)."""
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """Search the multiples of multiple_of for the SwiGLU count nearest the ReLU layer's."""
    relu = 8 * d_model * d_model
    candidates = range(multiple_of, 4 * d_model + 2 * multiple_of, multiple_of)
    return min(candidates, key=lambda h: (abs(3 * d_model * h - relu), -h))
