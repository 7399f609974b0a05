"""swiglu_hidden_size with Python's round(), which sends a tie to the even neighbour instead of up."""
# expect: a tie goes to the even neighbour
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong on ties: round half to even)."""
    return multiple_of * max(1, round(8 * d_model / (3 * multiple_of)))
