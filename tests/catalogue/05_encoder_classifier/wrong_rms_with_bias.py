"""RMSNorm with an extra beta: nn.RMSNorm's state_dict cannot load."""
# expect: state_dict must load
# %% patch rms_norm
# =
# +         self.bias = nn.Parameter(torch.zeros(self.normalized_shape))
# =     def forward(self, x):

# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight + self.bias
