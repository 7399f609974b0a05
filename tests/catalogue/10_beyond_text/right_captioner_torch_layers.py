"""ImageCaptioner from PyTorch's nn.TransformerEncoderLayer and nn.TransformerDecoderLayer (allowed here), both
decoder masks as float masks (-inf = blocked), the pooled memory as mean then unsqueeze."""
# %% answer captioner
class ImageCaptioner(nn.Module):
    """ViT encoder (patch memory, or one pooled vector) and a Transformer decoder that cross-attends to it."""
    def __init__(self, image_size, patch_size, vocab_size, in_channels=3, d_model=32, num_heads=4, d_ff=64,
                 num_encoder_layers=2, num_decoder_layers=2, dropout=0.0, max_len=16, pad_id=0, memory="patches"):
        super().__init__()
        self.d_model, self.pad_id = d_model, pad_id
        if memory == "patches":
            self.pool = False
        elif memory == "pooled":
            self.pool = True
        else:
            raise ValueError(f"memory should be 'patches' or 'pooled', not {memory!r}")
        side = image_size // patch_size
        self.patch_embed = PatchEmbedding(in_channels, patch_size, d_model)
        self.register_buffer("grid_pos", sincos_2d(side, side, d_model).unsqueeze(0), persistent=False)
        self.encoder_blocks = nn.ModuleList([
            nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout, activation="gelu", batch_first=True,
                                       norm_first=True) for _ in range(num_encoder_layers)])
        self.encoder_norm = nn.LayerNorm(d_model)
        self.tgt_embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer("word_pos", sinusoidal_table(max_len, d_model), persistent=False)
        self.decoder_layers = nn.ModuleList([
            nn.TransformerDecoderLayer(d_model, num_heads, d_ff, dropout, activation="gelu", batch_first=True,
                                       norm_first=True) for _ in range(num_decoder_layers)])
        self.decoder_norm = nn.LayerNorm(d_model)
        self.generator = nn.Linear(d_model, vocab_size)

    def encode(self, images):
        h = self.patch_embed(images) + self.grid_pos  # (B, N, E)
        for layer in self.encoder_blocks:
            h = layer(h)
        h = self.encoder_norm(h)
        if self.pool:
            h = h.mean(dim=1).unsqueeze(1)  # (B, 1, E): one slot
        return h

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        B, T = tgt_in.shape
        y = self.tgt_embed(tgt_in) * self.d_model ** 0.5 + self.word_pos[:T]  # (B, T, E)
        blocked = torch.full((T, T), float("-inf"), device=tgt_in.device).triu(diagonal=1)  # (T, T)
        padding = torch.zeros(B, T, device=tgt_in.device).masked_fill(tgt_in == self.pad_id, float("-inf"))
        for layer in self.decoder_layers:
            y = layer(y, memory, tgt_mask=blocked, tgt_key_padding_mask=padding,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(y))  # (B, T, V)

    def forward(self, images, tgt_in):
        return self.decode(tgt_in, self.encode(images))
