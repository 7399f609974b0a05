"""LayerNorm without beta at all: nn.LayerNorm's state_dict cannot load."""
# expect: state_dict must load
# %% patch layer_norm
# -         self.bias = nn.Parameter(torch.zeros(self.normalized_shape))  # beta

# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         var = x.var(dim=dims, keepdim=True, correction=0)
# +         return (x - mean) / torch.sqrt(var + self.eps) * self.weight
