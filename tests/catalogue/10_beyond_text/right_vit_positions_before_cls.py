"""ViTClassifier that adds the patches' positions first and then prepends the class token with its own
position (the learned table's first row, a zero for sin-cos), the modes kept as flags."""
# %% answer vit
class ViTClassifier(nn.Module):
    """Patch embedding, class token or mean pooling, learned / 2-D sin-cos / no positions, pre-norm blocks, head."""
    def __init__(self, image_size, patch_size, num_classes, in_channels=3, d_model=32, num_heads=4, d_ff=64,
                 num_layers=2, dropout=0.0, pooling="cls", positions="sincos"):
        super().__init__()
        if pooling not in ("cls", "mean"):
            raise ValueError("pooling must be 'cls' or 'mean'")
        if positions not in ("learned", "sincos", "none"):
            raise ValueError("positions must be 'learned', 'sincos' or 'none'")
        self.use_cls = pooling == "cls"
        self.positions = positions
        grid = image_size // patch_size
        self.patch_embed = PatchEmbedding(in_channels, patch_size, d_model)
        if self.use_cls:
            self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
            nn.init.normal_(self.cls_token, std=0.02)
        if positions == "learned":
            self.pos_embed = nn.Parameter(torch.zeros(1, grid * grid + int(self.use_cls), d_model))
            nn.init.normal_(self.pos_embed, std=0.02)
        elif positions == "sincos":
            self.register_buffer("patch_pos", sincos_2d(grid, grid, d_model), persistent=False)  # (N, E)
        self.blocks = nn.ModuleList()
        for _ in range(num_layers):
            self.blocks.append(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout,
                                                       activation="gelu", norm_first=True))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, images):
        x = self.patch_embed(images)  # (B, N, E)
        batch = x.shape[0]
        if self.positions == "learned":
            x = x + self.pos_embed[:, int(self.use_cls):]  # the patches' rows
        elif self.positions == "sincos":
            x = x + self.patch_pos
        if self.use_cls:
            cls = self.cls_token
            if self.positions == "learned":
                cls = cls + self.pos_embed[:, :1]  # the class token's own learned position
            x = torch.cat((cls.expand(batch, -1, -1), x), dim=1)  # (B, N + 1, E)
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        if self.use_cls:
            return self.head(x[:, 0])
        return self.head(x.mean(dim=1))
