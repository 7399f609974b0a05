"""No divisibility check: reshape fails with a RuntimeError instead of a clear ValueError."""
# expect: instead of ValueError
# %% patch patchify
# -     if H % p or W % p:
# -         raise ValueError(f"patch_size {p} must divide the image height {H} and width {W}")
