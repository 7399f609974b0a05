"""SwiGLU with GELU instead of SiLU (GEGLU)."""
# expect: GELU instead of SiLU
# %% patch swiglu_ffn
# -         return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
# +         return self.w2(F.gelu(self.w1(x)) * self.w3(x))
