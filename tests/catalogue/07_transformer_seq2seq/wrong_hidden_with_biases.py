"""swiglu_hidden_size matches a ReLU layer with biases (8d² + 5d) instead of the stated bias-free one."""
# expect: matched against a ReLU layer with biases
# %% answer swiglu_hidden_size
def swiglu_hidden_size(d_model, multiple_of=1):
    """SwiGLU hidden size (wrong: matched with the ReLU layer's biases)."""
    relu_params = 8 * d_model * d_model + 5 * d_model
    steps = (2 * relu_params + 3 * d_model * multiple_of) // (6 * d_model * multiple_of)
    return multiple_of * max(1, steps)
