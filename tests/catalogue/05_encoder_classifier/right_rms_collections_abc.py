"""RMSNorm accepts any collections.abc.Sequence as the shape, divides by torch.sqrt, and reads eps per call."""
# %% answer rms_norm
import collections.abc


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) * weight, over the trailing normalized_shape dimensions: no centring, no bias."""

    def __init__(self, normalized_shape, eps=None):
        super().__init__()
        if isinstance(normalized_shape, collections.abc.Sequence):
            shape = tuple(int(n) for n in normalized_shape)
        else:
            shape = (int(normalized_shape),)
        self.normalized_shape = shape
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(shape))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps  # nn.RMSNorm's default
        dims = [-(i + 1) for i in range(len(self.normalized_shape))]
        mean_square = x.square().mean(dim=dims, keepdim=True)
        return x / torch.sqrt(mean_square + eps) * self.weight
