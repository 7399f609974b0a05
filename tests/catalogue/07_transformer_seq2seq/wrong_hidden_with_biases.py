"""swiglu_hidden_size matches a ReLU layer with biases (8d² + 5d) instead of the stated bias-free one."""
# expect: matched against a ReLU layer with biases
# %% patch swiglu_hidden_size
# -     steps = (16 * d_model + 3 * multiple_of) // (6 * multiple_of)
# +     relu_params = 8 * d_model * d_model + 5 * d_model
# +     steps = (2 * relu_params + 3 * d_model * multiple_of) // (6 * d_model * multiple_of)
