"""SwiGLU with SiLU on the value branch w3 instead of the gate w1 (the weights are loaded by name)."""
# expect: gate and value are swapped
# %% patch swiglu_ffn
# -         return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
# +         return self.w2(self.w1(x) * F.silu(self.w3(x)))
