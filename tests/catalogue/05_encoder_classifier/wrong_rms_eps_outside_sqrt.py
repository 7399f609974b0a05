"""RMSNorm that adds eps to the root mean square instead of the mean square."""
# expect: eps added outside the square root
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
        dims = tuple(range(-len(self.normalized_shape), 0))
        eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps
        return x / (x.pow(2).mean(dim=dims, keepdim=True).sqrt() + eps) * self.weight
