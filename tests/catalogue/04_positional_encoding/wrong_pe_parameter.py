"""The sinusoidal table is registered as a trainable nn.Parameter instead of a buffer."""
# expect: trainable parameter
# %% answer sinusoidal_module
class SinusoidalPositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.d_model = d_model
        self.pe = nn.Parameter(sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        length = x.shape[-2]
        if length <= self.pe.shape[0]:
            pe = self.pe[:length]
        else:
            pe = sinusoidal_positional_encoding(length, self.d_model).to(x.device)
        return self.dropout(x + pe)
