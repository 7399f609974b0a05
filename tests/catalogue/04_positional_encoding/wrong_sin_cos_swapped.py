"""Even dimensions get cos and odd dimensions get sin (sin/cos swapped)."""
# expect: sin and cos are swapped
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got d_model={d_model}")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    omega = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.cos(position * omega)
    pe[:, 1::2] = torch.sin(position * omega)
    return pe.float()
