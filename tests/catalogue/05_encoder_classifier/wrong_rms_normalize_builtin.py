"""RMSNorm through F.normalize: an extra column sqrt(D·eps) carries eps, and x/||x|| times sqrt(D) is x/rms.
Right values, but F.normalize computes the normalisation the rule asks for: refused while the rule is checked."""
# expect: Compute the root mean square yourself
# %% answer rms_norm
class RMSNorm(nn.Module):
    def __init__(self, normalized_shape, eps=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps
        size = 1
        for n in self.normalized_shape:
            size *= n
        flat = x.flatten(start_dim=x.dim() - len(self.normalized_shape))  # (..., D)
        extra = torch.full((*flat.shape[:-1], 1), (size * eps) ** 0.5, dtype=x.dtype)
        unit = F.normalize(torch.cat([flat, extra], dim=-1), dim=-1)[..., :size]  # x / sqrt(sum x² + D eps)
        return unit.reshape(x.shape) * size**0.5 * self.weight
