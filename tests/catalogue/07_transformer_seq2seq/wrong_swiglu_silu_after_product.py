"""SwiGLU with SiLU applied to the product w1(x) * w3(x)."""
# expect: SiLU is applied to the product
# %% patch swiglu_ffn
# -         return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
# +         return self.w2(F.silu(self.w1(x) * self.w3(x)))
