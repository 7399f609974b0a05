"""LayerNorm through F.local_response_norm on the centred input: one window over all D channels, alpha = size/D,
k = eps, beta = 1/2 divide by sqrt(var + eps). Right values, but local response normalisation is a built-in
normalisation: refused while the rule is checked."""
# expect: Compute the mean and the variance yourself
# %% answer layer_norm
class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))

    def forward(self, x):
        dims = tuple(range(-len(self.normalized_shape), 0))
        centred = x - x.mean(dim=dims, keepdim=True)
        flat = centred.reshape(-1, self._size(), 1)  # (M, D, 1): the D features are the channels
        size = 2 * flat.shape[1] - 1
        normed = F.local_response_norm(flat, size, alpha=size / flat.shape[1], beta=0.5, k=self.eps)
        return normed.reshape(x.shape) * self.weight + self.bias

    def _size(self):
        total = 1
        for n in self.normalized_shape:
            total *= n
        return total
