"""RMSNorm whose default eps is a fixed 1e-6 instead of the dtype's machine epsilon."""
# expect: torch.finfo
# %% patch rms_norm
# -         eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps
# +         eps = 1e-6 if self.eps is None else self.eps
