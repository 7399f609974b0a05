"""Interleaving by stack+flatten, an embedding-bag style learned table, RoPE with a 2x2 rotation matrix per pair."""
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"odd d_model={d_model}")
    angles = torch.outer(torch.arange(max_len, dtype=torch.float64),
                         torch.pow(10000.0, -torch.arange(d_model // 2, dtype=torch.float64) * 2 / d_model))
    return torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(max_len, d_model).float()
# %% answer sinusoidal_module
class SinusoidalPositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("table", sinusoidal_positional_encoding(max_len, d_model))
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        L, d = x.shape[-2], x.shape[-1]
        table = self.table if L <= len(self.table) else sinusoidal_positional_encoding(L, d).to(x.device)
        return self.drop(x + table[:L].to(x.dtype))
# %% answer learned_pe
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.pos = nn.Embedding(max_len, d_model)

    def forward(self, x):
        B, L = x.shape[0], x.shape[-2]
        if L > self.max_len:
            raise ValueError(f"input has L={L} positions, more than max_len={self.max_len}")
        ids = torch.arange(L, device=x.device).expand(*x.shape[:-2], L)
        return x + self.pos(ids)
# %% answer rotary
def rotary_embedding(x, positions=None):
    L, D = x.shape[-2], x.shape[-1]
    if D % 2 != 0:
        raise ValueError(f"D={D} is odd")
    pos = torch.arange(L, device=x.device) if positions is None else positions.to(x.device)
    theta = torch.pow(10000.0, -torch.arange(0, D, 2, device=x.device, dtype=torch.float64) / D)
    a = pos.double()[..., None] * theta  # (..., L, D/2), float64: cos and sin are cast after
    c, s = a.cos().to(x.dtype), a.sin().to(x.dtype)
    rot = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)  # (..., L, D/2, 2, 2)
    pairs = x.reshape(*x.shape[:-1], D // 2, 2, 1)
    return (rot @ pairs).reshape(x.shape)
