"""LayerNorm.forward calls a class attribute that the bucket_batches cell sets to F.layer_norm."""
# expect: no built-in normalisation (F.layer_norm, F.rms_norm, ...) inside LayerNorm
# %% patch layer_norm
# -         dims = tuple(range(-len(self.normalized_shape), 0))  # the trailing dimensions
# -         mean = x.mean(dim=dims, keepdim=True)
# -         var = (x - mean).pow(2).mean(dim=dims, keepdim=True)  # biased: divide by D
# -         return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
# +         return type(self).impl(x, self.normalized_shape, self.weight, self.bias, self.eps)
# %% patch bucket_batches
# + LayerNorm.impl = staticmethod(F.layer_norm)
# +
# +
# = def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
