"""SwiGLUFeedForward without d_ff uses 4 * d_model instead of swiglu_hidden_size(d_model)."""
# expect: Without d_ff
# %% patch swiglu_ffn
# -         hidden = swiglu_hidden_size(d_model) if d_ff is None else d_ff
# +         hidden = 4 * d_model if d_ff is None else d_ff
