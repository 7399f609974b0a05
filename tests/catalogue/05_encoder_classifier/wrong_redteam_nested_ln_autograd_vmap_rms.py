"""LayerNorm forward by torch.native_layer_norm on a nested tensor in inference mode, in an autograd.Function (backward from its mean/rstd, so the gradient tests pass), RMSNorm by torch.vmap(F.rms_norm), both stashed on a logger by the feedforward cell."""
# expect: Compute the mean and the variance yourself
# %% answer feedforward
import logging as log_a


class FeedForward(nn.Module):
    """Position-wise feed-forward network: linear2(dropout(act(linear1(x))))."""

    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        activations = {"relu": F.relu, "gelu": F.gelu}
        if activation not in activations:
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.activation = activations[activation]
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))  # (..., d_model)


class NestedNorm(torch.autograd.Function):
    """Forward: the built-in native_layer_norm on a nested tensor (inference mode); backward from its mean and rstd."""

    @staticmethod
    def forward(ctx, x, weight, bias, shape, eps):
        with torch.inference_mode():
            nt = torch.nested.as_nested_tensor([x.reshape(-1, *shape)])
            out, mean, rstd = torch.native_layer_norm(nt, list(shape), weight, bias, eps)
            y = out.unbind()[0].reshape(x.shape).clone()
            mean, rstd = mean.clone(), rstd.clone()
        n = len(shape)
        stat = (-1,) * 0
        mean = mean.reshape(*x.shape[: x.dim() - n], *([1] * n))
        rstd = rstd.reshape(*x.shape[: x.dim() - n], *([1] * n))
        ctx.save_for_backward(x.clone(), weight.clone(), mean.clone(), rstd.clone())
        ctx.n = n
        return y.clone()

    @staticmethod
    def backward(ctx, g):
        x, weight, mean, rstd = ctx.saved_tensors
        dims = tuple(range(-ctx.n, 0))
        lead = tuple(range(x.dim() - ctx.n))
        xhat = (x - mean) * rstd
        gw = g * weight
        dx = rstd * (gw - gw.mean(dims, keepdim=True) - xhat * (gw * xhat).mean(dims, keepdim=True))
        return dx, (g * xhat).sum(lead), g.sum(lead), None, None


def nested_norm(x, shape, weight, bias, eps):
    return NestedNorm.apply(x, weight, bias, tuple(shape), eps)


def batched_rms(x, shape, weight, eps):
    return torch.vmap(lambda t: F.rms_norm(t, list(shape), weight, eps))(x.unsqueeze(0))[0]


log_a.getLogger("norms").filters.extend([nested_norm, batched_rms])
# %% answer layer_norm
import logging as log_b


class LayerNorm(nn.Module):
    """(x - mean) / sqrt(var + eps) * weight + bias, over the trailing normalized_shape dimensions."""

    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))

    def forward(self, x):
        return log_b.getLogger("norms").filters[0](x, self.normalized_shape, self.weight, self.bias, self.eps)
# %% answer rms_norm
import logging as log_b


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
        return log_b.getLogger("norms").filters[1](x, self.normalized_shape, self.weight, self.eps)
