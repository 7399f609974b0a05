"""The patch embedding as F.linear on the patches with the conv weight reshaped to a matrix."""
# %% answer patch_embedding
class PatchEmbedding(nn.Module):
    """Patches -> d_model vectors with Conv2d-shaped weights: (B, C, H, W) -> (B, N, E)."""

    def __init__(self, in_channels, patch_size, d_model):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        matrix = self.proj.weight.reshape(self.proj.out_channels, -1)
        return F.linear(patchify(images, self.patch_size), matrix, self.proj.bias)
