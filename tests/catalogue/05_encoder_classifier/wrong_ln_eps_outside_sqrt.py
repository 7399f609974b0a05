"""LayerNorm that adds eps to the standard deviation instead of the variance."""
# expect: eps added outside the square root
# %% patch layer_norm
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         std = x.std(dim=dims, keepdim=True, correction=0)
# +         return (x - mean) / (std + self.eps) * self.weight + self.bias
