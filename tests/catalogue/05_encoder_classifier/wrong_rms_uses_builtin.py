"""RMSNorm that calls F.rms_norm: correct numbers, but the built-in is forbidden there."""
# expect: which the rule refuses
# %% patch rms_norm
# -         return x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + eps) * self.weight
# +         return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)
