"""SwiGLU with ReLU instead of SiLU (ReGLU)."""
# expect: ReLU instead of SiLU
# %% patch swiglu_ffn
# -         return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
# +         return self.w2(F.relu(self.w1(x)) * self.w3(x))
