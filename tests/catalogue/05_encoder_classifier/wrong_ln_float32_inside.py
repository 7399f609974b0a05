"""LayerNorm computed in float32 whatever the input's dtype (float64 loses its precision and dtype)."""
# expect: dtype
# %% patch layer_norm
# =         dims = tuple(range(-len(self.normalized_shape), 0))  # the trailing dimensions
# +         x = x.float()

# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         var = x.var(dim=dims, keepdim=True, correction=0)
# +         return (x - mean) / torch.sqrt(var + self.eps) * self.weight.float() + self.bias.float()
