"""RMSNorm that divides by the L2 norm sqrt(sum(x²)) instead of the root mean square."""
# expect: sqrt(sum(x²))
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return x / torch.sqrt(x.pow(2).sum(dim=dims, keepdim=True) + eps) * self.weight
