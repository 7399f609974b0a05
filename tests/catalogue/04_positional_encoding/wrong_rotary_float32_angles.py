"""RoPE with theta, the angles and their cos and sin in the dtype of x (float32): right at small positions, off by
about 1e-3 at position 20,000, where float32 cannot hold m * theta."""
# expect: lost precision
# %% answer rotary
def rotary_embedding(x, positions=None):
    length, dim = x.shape[-2], x.shape[-1]
    if dim % 2 != 0:
        raise ValueError(f"D must be even, got {dim}")
    if positions is None:
        positions = torch.arange(length, device=x.device)
    theta = 10000.0 ** (-torch.arange(0, dim, 2, device=x.device, dtype=x.dtype) / dim)
    angles = positions.to(x.device, x.dtype).unsqueeze(-1) * theta
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
