"""Model on the given Seq2SeqLayers, with its own PE table (stacked sin/cos) and nn.Transformer's float causal mask."""
# %% answer seq2seq_transformer
class Seq2SeqTransformer(Seq2SeqLayers):
    """Encoder-decoder Transformer on the given layers."""
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_encoder_layers=6,
                 num_decoder_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0, norm_first=False,
                 tie_weights=False, share_embeddings=False):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, num_encoder_layers,
                         num_decoder_layers, d_ff, dropout, pad_id, norm_first)
        angle = torch.arange(max_len)[:, None] / 10000 ** (torch.arange(0, d_model, 2) / d_model)  # (max_len, d/2)
        table = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1).float()  # interleaved sin, cos
        self.register_buffer("pe", table, persistent=False)
        if share_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("one vocabulary is needed to share the embeddings")
        if share_embeddings:
            self.src_embed.weight = self.tgt_embed.weight
        if tie_weights:
            self.generator.weight = self.tgt_embed.weight

    def embed(self, table, ids):
        return self.dropout(table(ids) * self.d_model**0.5 + self.pe[: ids.shape[1]])

    def encode(self, src):
        return self.encoder(self.embed(self.src_embed, src), src_key_padding_mask=src == self.pad_id)

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        y, T = self.embed(self.tgt_embed, tgt_in), tgt_in.shape[1]
        future = nn.Transformer.generate_square_subsequent_mask(T, device=tgt_in.device)  # -inf above the diagonal
        for block in self.decoder_layers:
            y = block(y, memory, tgt_mask=future, tgt_key_padding_mask=tgt_in == self.pad_id,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(y))

    def forward(self, src, tgt_in):
        return self.decode(tgt_in, self.encode(src), src == self.pad_id)
