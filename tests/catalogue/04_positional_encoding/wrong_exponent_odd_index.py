"""The exponent uses the dimension index j (10000^(j/d)) instead of 2*floor(j/2): cos dims get their own frequency."""
# expect: dimension index j
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got d_model={d_model}")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    j = torch.arange(d_model, dtype=torch.float64)
    angles = position / 10000 ** (j / d_model)  # one frequency per dimension
    pe = torch.where(j % 2 == 0, torch.sin(angles), torch.cos(angles))
    return pe.float()
