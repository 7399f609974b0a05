"""A loop over the frequency pairs with math.pow, and RoPE through complex multiplication."""
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError("d_model has to be even; d_model = %d" % d_model)
    pos = torch.arange(max_len, dtype=torch.float64)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = 1.0 / math.pow(10000.0, 2 * i / d_model)
        pe[:, 2 * i] = torch.sin(pos * w)
        pe[:, 2 * i + 1] = torch.cos(pos * w)
    return pe.to(torch.float32)
# %% answer rotary
def rotary_embedding(x, positions=None):
    L, D = x.shape[-2:]
    if D % 2:
        raise ValueError(f"rotary_embedding needs an even last dimension, got {D}")
    if positions is None:
        positions = torch.arange(L)
    positions = positions.to(x.device)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, D, 2, device=x.device, dtype=torch.float64) / D))
    angle = positions[..., None].double() * inv_freq  # (..., L, D/2)
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], D // 2, 2).contiguous())
    out = torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle))
    return out.reshape(x.shape).to(x.dtype)
