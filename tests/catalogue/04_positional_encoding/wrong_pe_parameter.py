"""The sinusoidal table is registered as a trainable nn.Parameter instead of a buffer."""
# expect: trainable parameter
# %% patch sinusoidal_module
# -         self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))  # (max_len, d_model)
# +         self.pe = nn.Parameter(sinusoidal_positional_encoding(max_len, d_model))

# -             pe = sinusoidal_positional_encoding(length, self.d_model).to(self.pe.device)
# +             pe = sinusoidal_positional_encoding(length, self.d_model).to(x.device)
