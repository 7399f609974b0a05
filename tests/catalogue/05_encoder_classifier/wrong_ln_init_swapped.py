"""LayerNorm whose gamma starts at zeros and beta at ones (the initialisations swapped)."""
# expect: weight = ones
# %% patch layer_norm
# -         self.weight = nn.Parameter(torch.ones(self.normalized_shape))  # gamma
# -         self.bias = nn.Parameter(torch.zeros(self.normalized_shape))  # beta
# +         self.weight = nn.Parameter(torch.zeros(self.normalized_shape))
# +         self.bias = nn.Parameter(torch.ones(self.normalized_shape))

# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# +         var = x.var(dim=dims, keepdim=True, correction=0)
