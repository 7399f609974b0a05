"""LayerNorm that calls F.layer_norm: correct numbers, but the built-in is forbidden there."""
# expect: which the rule refuses
# %% patch layer_norm
# -         mean = x.mean(dim=dims, keepdim=True)
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
