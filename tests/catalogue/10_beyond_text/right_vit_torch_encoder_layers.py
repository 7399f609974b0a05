"""ViTClassifier from PyTorch's own nn.TransformerEncoderLayer (allowed here: the notebook has no rule), the
class token repeated over the batch, the sin-cos table's zero row for it added with F.pad."""
# %% answer vit
class ViTClassifier(nn.Module):
    """Patch embedding, class token or mean pooling, learned / 2-D sin-cos / no positions, pre-norm blocks, head."""
    def __init__(self, image_size, patch_size, num_classes, in_channels=3, d_model=32, num_heads=4, d_ff=64,
                 num_layers=2, dropout=0.0, pooling="cls", positions="sincos"):
        super().__init__()
        if pooling not in {"cls", "mean"}:
            raise ValueError(f"unknown pooling {pooling!r}")
        if positions not in {"learned", "sincos", "none"}:
            raise ValueError(f"unknown positions {positions!r}")
        self.pooling = pooling
        self.patch_embed = PatchEmbedding(in_channels, patch_size, d_model)
        n_patches = (image_size // patch_size) ** 2
        n_tokens = n_patches + 1 if pooling == "cls" else n_patches
        if pooling == "cls":
            self.cls_token = nn.Parameter(0.02 * torch.randn(1, 1, d_model))
        if positions == "learned":
            self.pos_embed = nn.Parameter(0.02 * torch.randn(1, n_tokens, d_model))
        elif positions == "sincos":
            table = sincos_2d(image_size // patch_size, image_size // patch_size, d_model)  # (N, E)
            table = F.pad(table, (0, 0, n_tokens - n_patches, 0))  # a zero row on top for the class token
            self.register_buffer("pos_embed", table.unsqueeze(0), persistent=False)
        else:
            self.pos_embed = None
        self.blocks = nn.ModuleList([
            nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout, activation="gelu", batch_first=True,
                                       norm_first=True)
            for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, images):
        tokens = self.patch_embed(images)  # (B, N, E)
        if self.pooling == "cls":
            tokens = torch.cat([self.cls_token.repeat(tokens.shape[0], 1, 1), tokens], dim=1)  # (B, 1 + N, E)
        if self.pos_embed is not None:
            tokens = tokens + self.pos_embed
        for layer in self.blocks:
            tokens = layer(tokens)
        tokens = self.norm(tokens)
        pooled = tokens[:, 0, :] if self.pooling == "cls" else tokens.mean(dim=1)  # (B, E)
        return self.head(pooled)
