"""RMSNorm that divides by the mean square, forgetting the square root."""
# expect: without the square root
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return x / (x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
