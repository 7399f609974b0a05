"""RMSNorm that centres x first (LayerNorm without beta)."""
# expect: the mean is subtracted
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         x = x - x.mean(dim=dims, keepdim=True)
# +         return x / torch.sqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
