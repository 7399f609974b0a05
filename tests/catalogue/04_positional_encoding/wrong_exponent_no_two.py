"""The exponent is i/d_model with i the pair index: the factor 2 of 2i/d_model is missing."""
# expect: factor 2 is missing
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got d_model={d_model}")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = 10000.0 ** (-i / d_model)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * omega)
    pe[:, 1::2] = torch.cos(position * omega)
    return pe.float()
