"""swiglu_hidden_size uses LLaMA's rounding (2/3 * 4d down, then up to a multiple), not the nearest multiple."""
# expect: rounded down
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: LLaMA's round-up rule)."""
    hidden = int(2 * 4 * d_model / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
