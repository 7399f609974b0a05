"""SwiGLU with a sigmoid gate (the original GLU) instead of SiLU."""
# expect: a sigmoid gate instead of SiLU
# %% patch swiglu_ffn
# -         return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
# +         return self.w2(torch.sigmoid(self.w1(x)) * self.w3(x))
