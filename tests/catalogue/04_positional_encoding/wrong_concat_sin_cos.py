"""All sines in the first half and all cosines in the second half, instead of interleaved."""
# expect: concatenated
# %% answer sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got d_model={d_model}")
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    omega = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    return torch.cat([torch.sin(position * omega), torch.cos(position * omega)], dim=-1).float()
