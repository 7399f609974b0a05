"""Notebook 05: RMSNorm through F.layer_norm of [x, -x]: the pair has mean 0 and variance mean(x²), so
layer_norm's first half is x / sqrt(mean(x²) + eps), gradients included: a built-in normalisation
computes the root mean square and divides by it, which the rule forbids."""
# notebook: 05_encoder_classifier
# withheld: test_rms_norm
# flag: forbidden
# %% answer rms_norm
class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) * weight, over the trailing normalized_shape dimensions: no centring, no bias."""

    def __init__(self, normalized_shape, eps=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps
        first = x.dim() - len(self.normalized_shape)  # the first normalised dimension
        pair = torch.cat([x, -x], dim=first)  # mean 0, variance mean(x²)
        shape = pair.shape[first:]
        return F.layer_norm(pair, shape, eps=eps).narrow(first, 0, x.shape[first]) * self.weight
