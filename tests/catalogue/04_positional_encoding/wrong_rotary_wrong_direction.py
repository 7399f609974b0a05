"""RoPE rotating by -m*theta (the sign of sin flipped)."""
# expect: wrong way
# %% answer rotary
def rotary_embedding(x, positions=None):
    length, dim = x.shape[-2], x.shape[-1]
    if dim % 2 != 0:
        raise ValueError(f"D must be even, got {dim}")
    if positions is None:
        positions = torch.arange(length, device=x.device)
    theta = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    angles = positions.double().unsqueeze(-1) * theta
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos + odd * sin, -even * sin + odd * cos], dim=-1).flatten(-2)
