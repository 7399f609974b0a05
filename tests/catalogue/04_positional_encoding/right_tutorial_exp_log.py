"""The PyTorch-tutorial formulation in float32 (exp/log div_term), a (1, max_len, d) buffer, an nn.Parameter table."""
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError(f"sinusoidal encoding needs an even d_model, not {d_model}")
    position = torch.arange(max_len).unsqueeze(1).float()
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe
# %% answer sinusoidal_module
class SinusoidalPositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model).unsqueeze(0), persistent=False)

    def forward(self, x):
        if x.size(-2) > self.pe.size(1):  # grow the table once, keep it
            self.pe = sinusoidal_positional_encoding(x.size(-2), self.pe.size(-1)).unsqueeze(0).to(self.pe.device)
        pe = self.pe[0, : x.size(-2)]
        return self.dropout(x + pe)
# %% answer learned_pe
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.table = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x):
        L = x.size(-2)
        if L > self.table.size(0):
            raise ValueError(f"got {L} positions but max_len is {self.table.size(0)}")
        return x + self.table[:L]
