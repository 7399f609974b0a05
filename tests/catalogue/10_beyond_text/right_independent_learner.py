"""An answer written from the student notebook alone, without the reference: every stub."""

# %% answer patchify
def patchify(images, patch_size):
    """(B, C, H, W) -> (B, N, C*p*p): row-major patches, each flattened in (channel, row, column) order."""
    batch, channels, height, width = images.shape
    if height % patch_size != 0 or width % patch_size != 0:
        raise ValueError(f"image of {height} x {width} cannot be cut into {patch_size} x {patch_size} patches")
    rows, cols = height // patch_size, width // patch_size
    out = images.unfold(2, patch_size, patch_size).unfold(3, patch_size, patch_size)  # (B, C, rows, cols, p, p)
    out = out.permute(0, 2, 3, 1, 4, 5).contiguous()  # (B, rows, cols, C, p, p)
    return out.view(batch, rows * cols, channels * patch_size * patch_size)


# %% answer patch_embedding
class PatchEmbedding(nn.Module):
    """Patches -> d_model vectors with Conv2d-shaped weights: (B, C, H, W) -> (B, N, E)."""

    def __init__(self, in_channels, patch_size, d_model):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_channels, d_model, kernel_size=(patch_size, patch_size),
                              stride=(patch_size, patch_size), bias=True)

    def forward(self, images):
        flat = patchify(images, self.patch_size)  # (B, N, C*p*p)
        kernel = self.proj.weight.view(self.proj.weight.shape[0], -1)  # (E, C*p*p)
        return torch.einsum("bnk,ek->bne", flat, kernel) + self.proj.bias


# %% answer sincos_2d
def sincos_2d(grid_h, grid_w, d_model):
    """(grid_h * grid_w, d_model) 2-D positions: the row's 1-D table, then the column's, row-major."""
    if d_model % 4 != 0:
        raise ValueError(f"2-D positions need d_model divisible by 4, got {d_model}")
    half = d_model // 2
    by_row = sinusoidal_table(grid_h, half).repeat_interleave(grid_w, dim=0)  # row r repeated for each column
    by_col = sinusoidal_table(grid_w, half).repeat(grid_h, 1)  # the columns cycled once per row
    return torch.hstack([by_row, by_col])


# %% answer vit
class ViTClassifier(nn.Module):
    """Patch embedding, class token or mean pooling, learned / 2-D sin-cos / no positions, pre-norm blocks, head."""
    def __init__(self, image_size, patch_size, num_classes, in_channels=3, d_model=32, num_heads=4, d_ff=64,
                 num_layers=2, dropout=0.0, pooling="cls", positions="sincos"):
        super().__init__()
        if pooling not in ["cls", "mean"]:
            raise ValueError("pooling: 'cls' or 'mean'")
        if positions not in ["learned", "sincos", "none"]:
            raise ValueError("positions: 'learned', 'sincos' or 'none'")
        side = image_size // patch_size
        extra = 1 if pooling == "cls" else 0
        self.pooling, self.positions = pooling, positions
        self.patch_embed = PatchEmbedding(in_channels, patch_size, d_model)
        if extra:
            self.cls_token = nn.Parameter(torch.empty(1, 1, d_model).normal_(0.0, 0.02))
        if positions == "learned":
            self.pos_embed = nn.Parameter(torch.empty(1, side * side + extra, d_model).normal_(0.0, 0.02))
        elif positions == "sincos":
            rows = [torch.zeros(extra, d_model), sincos_2d(side, side, d_model)]
            self.register_buffer("pos_embed", torch.vstack(rows).unsqueeze(0), persistent=False)
        self.blocks = nn.ModuleList(
            [TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, "gelu", True) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, images):
        seq = self.patch_embed(images)
        if self.pooling == "cls":
            seq = torch.cat([self.cls_token.expand(seq.size(0), 1, seq.size(2)), seq], 1)
        if self.positions != "none":
            seq = seq + self.pos_embed
        for blk in self.blocks:
            seq = blk(seq)
        seq = self.norm(seq)
        summary = seq[:, 0] if self.pooling == "cls" else seq.mean(1)
        return self.head(summary)


# %% answer captioner
class ImageCaptioner(nn.Module):
    """ViT encoder (patch memory, or one pooled vector) and a Transformer decoder that cross-attends to it."""
    def __init__(self, image_size, patch_size, vocab_size, in_channels=3, d_model=32, num_heads=4, d_ff=64,
                 num_encoder_layers=2, num_decoder_layers=2, dropout=0.0, max_len=16, pad_id=0, memory="patches"):
        super().__init__()
        self.d_model, self.pad_id = d_model, pad_id
        if memory not in ["patches", "pooled"]:
            raise ValueError(f"memory={memory!r}: expected 'patches' or 'pooled'")
        self.memory_kind = memory
        n = image_size // patch_size
        self.patch_embed = PatchEmbedding(in_channels, patch_size, d_model)
        self.register_buffer("image_positions", sincos_2d(n, n, d_model), persistent=False)
        self.encoder_blocks = nn.ModuleList()
        for _ in range(num_encoder_layers):
            self.encoder_blocks.append(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, activation="gelu",
                                                               norm_first=True))
        self.encoder_norm = nn.LayerNorm(d_model)
        self.tgt_embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer("text_positions", sinusoidal_table(max_len, d_model), persistent=False)
        self.decoder_layers = nn.ModuleList()
        for _ in range(num_decoder_layers):
            self.decoder_layers.append(TransformerDecoderBlock(d_model, num_heads, d_ff, dropout, activation="gelu",
                                                               norm_first=True))
        self.decoder_norm = nn.LayerNorm(d_model)
        self.generator = nn.Linear(d_model, vocab_size)

    def encode(self, images):
        h = self.patch_embed(images) + self.image_positions
        for blk in self.encoder_blocks:
            h = blk(h)
        h = self.encoder_norm(h)
        if self.memory_kind == "pooled":
            return h.mean(dim=1, keepdim=True)
        return h

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        length = tgt_in.size(1)
        scale = math.sqrt(self.d_model)
        h = self.tgt_embed(tgt_in) * scale + self.text_positions[:length].unsqueeze(0)
        future = ~torch.tril(torch.ones(length, length, dtype=torch.bool, device=tgt_in.device))
        pad = tgt_in.eq(self.pad_id)
        for blk in self.decoder_layers:
            h = blk(h, memory, tgt_mask=future, tgt_key_padding_mask=pad,
                    memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(h))

    def forward(self, images, tgt_in):
        return self.decode(tgt_in, self.encode(images))


# %% answer object_patches
def object_patches(box, image_size, patch_size):
    """(N,) bool: the patches (row-major) that hold at least one pixel of box = (top, left, bottom, right)."""
    top, left, bottom, right = (int(v) for v in box)
    n = image_size // patch_size
    cells = []
    for r in range(n):
        for c in range(n):
            y0, x0 = r * patch_size, c * patch_size
            overlap_y = y0 < bottom and top < y0 + patch_size
            overlap_x = x0 < right and left < x0 + patch_size
            cells.append(overlap_y and overlap_x)
    return torch.tensor(cells, dtype=torch.bool)


# %% answer attention_share
def attention_share(weights, patch_mask):
    """The share of each attention row that falls on the masked patches: (..., N) -> (...)."""
    total = weights.sum(-1)
    on_mask = (weights * patch_mask).sum(-1)
    return on_mask / total
