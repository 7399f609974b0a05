"""RMSNorm that adds eps to the root mean square instead of the mean square."""
# expect: eps added outside the square root
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return x / (x.pow(2).mean(dim=dims, keepdim=True).sqrt() + eps) * self.weight
