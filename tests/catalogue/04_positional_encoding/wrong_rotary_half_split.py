"""RoPE with the rotate-half (GPT-NeoX) pairing instead of this notebook's interleaved pairs."""
# expect: rotate-half
# %% answer rotary
def rotary_embedding(x, positions=None):
    length, dim = x.shape[-2], x.shape[-1]
    if dim % 2 != 0:
        raise ValueError(f"D must be even, got {dim}")
    if positions is None:
        positions = torch.arange(length, device=x.device)
    theta = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    angles = positions.double().unsqueeze(-1) * theta
    angles = torch.cat([angles, angles], dim=-1)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    first, second = x[..., : dim // 2], x[..., dim // 2:]
    rotate_half = torch.cat([-second, first], dim=-1)
    return x * cos + rotate_half * sin
