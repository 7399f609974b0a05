"""SwiGLU whose three nn.Linear layers keep their default biases, where none are asked for."""
# expect: exactly w1
# %% patch swiglu_ffn
# -         self.w1 = nn.Linear(d_model, hidden, bias=False)  # the gate: goes through SiLU
# -         self.w3 = nn.Linear(d_model, hidden, bias=False)  # the value: stays linear
# -         self.w2 = nn.Linear(hidden, d_model, bias=False)  # back to d_model
# +         self.w1 = nn.Linear(d_model, hidden)
# +         self.w3 = nn.Linear(d_model, hidden)
# +         self.w2 = nn.Linear(hidden, d_model)
