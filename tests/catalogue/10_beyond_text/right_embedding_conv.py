"""The patch embedding as the convolution itself, its output turned into a sequence."""
# %% answer patch_embedding
class PatchEmbedding(nn.Module):
    """Patches -> d_model vectors with Conv2d-shaped weights: (B, C, H, W) -> (B, N, E)."""

    def __init__(self, in_channels, patch_size, d_model):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_channels, d_model, patch_size, stride=patch_size)

    def forward(self, images):
        return self.proj(images).flatten(2).transpose(1, 2)  # (B, E, rows, cols) -> (B, N, E)
