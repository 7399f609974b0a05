"""LayerNorm that holds beta but never adds it."""
# expect: β (bias) is not added
# %% patch layer_norm
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         var = x.var(dim=dims, keepdim=True, correction=0)
# +         return (x - mean) / torch.sqrt(var + self.eps) * self.weight
