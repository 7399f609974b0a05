"""RMSNorm over the batch axis instead of the features."""
# expect: over the batch axis
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return x / torch.sqrt(x.pow(2).mean(dim=0, keepdim=True) + eps) * self.weight
