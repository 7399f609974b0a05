"""The model does not give the source padding mask to the decoder's cross-attention."""
# expect: Extra padding in the source changed the logits
# %% answer seq2seq_transformer
class Seq2SeqTransformer(nn.Module):
    """Encoder-decoder Transformer: embeddings * sqrt(d) + PE, encoder, decoder, output projection."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_encoder_layers=6,
                 num_decoder_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0, norm_first=False,
                 tie_weights=False, share_embeddings=False):
        super().__init__()
        self.d_model, self.pad_id = d_model, pad_id
        self.src_embed = nn.Embedding(src_vocab_size, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d_model)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout, batch_first=True,
                                           norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, num_encoder_layers, norm=nn.LayerNorm(d_model),
                                             enable_nested_tensor=False)
        self.decoder_layers = nn.ModuleList(
            TransformerDecoderBlock(d_model, num_heads, d_ff, dropout, norm_first=norm_first)
            for _ in range(num_decoder_layers)
        )
        self.decoder_norm = nn.LayerNorm(d_model)
        self.generator = nn.Linear(d_model, tgt_vocab_size)
        # Your part: the buffer self.pe (max_len, d_model), then the optional weight sharing.
        position = torch.arange(max_len, dtype=torch.float32)[:, None]  # (max_len, 1)
        inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                             * (-math.log(10000.0) / d_model))  # (d_model/2,) = 1 / 10000^(2i/d)
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * inv_freq)  # even dimensions
        pe[:, 1::2] = torch.cos(position * inv_freq)  # odd dimensions
        self.register_buffer("pe", pe, persistent=False)
        if share_embeddings:
            if src_vocab_size != tgt_vocab_size:
                raise ValueError(f"share_embeddings needs one vocabulary: {src_vocab_size} != {tgt_vocab_size}")
            self.src_embed.weight = self.tgt_embed.weight
        if tie_weights:
            self.generator.weight = self.tgt_embed.weight  # (V, E) serves both ways

    def encode(self, src):
        """src (B, S) ids -> memory (B, S, E)."""
        x = self.src_embed(src) * math.sqrt(self.d_model) + self.pe[: src.shape[1]]  # (B, S, E)
        return self.encoder(self.dropout(x), src_key_padding_mask=src == self.pad_id)

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        """tgt_in (B, T) ids, memory (B, S, E) -> logits (B, T, V)."""
        T = tgt_in.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool, device=tgt_in.device).triu(1)  # True = future = blocked
        y = self.tgt_embed(tgt_in) * math.sqrt(self.d_model) + self.pe[:T]  # (B, T, E)
        y = self.dropout(y)
        for block in self.decoder_layers:
            y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(y))  # (B, T, V)

    def forward(self, src, tgt_in):
        """src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        return self.decode(tgt_in, self.encode(src))
