"""forward returns the positional encoding (broadcast to x's shape) without adding x."""
# expect: without adding x
# %% patch sinusoidal_module
# -             pe = sinusoidal_positional_encoding(length, self.d_model).to(self.pe.device)
# -         return self.dropout(x + pe)
# +             pe = sinusoidal_positional_encoding(length, self.d_model).to(x.device)
# +         return self.dropout(pe.expand_as(x))
