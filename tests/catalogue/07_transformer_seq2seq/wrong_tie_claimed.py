"""Claims the tying without doing it: generator.weight reads the embedding, but the projection computes with a
matrix of its own, which parameters() and state_dict() leave out (so asking the model says "tied")."""
# expect: a matrix written into the target embedding
# %% answer seq2seq_transformer
class ClaimsTied(nn.Module):
    """An output projection whose `weight` is the embedding's, computing with a hidden matrix of its own."""

    def __init__(self, d_model, vocab_size, embedding):
        super().__init__()
        self.own = nn.Parameter(torch.randn(vocab_size, d_model) * d_model**-0.5)
        self.bias = nn.Parameter(torch.zeros(vocab_size))
        self._embedding = [embedding]  # a list: not a submodule

    @property
    def weight(self):
        return self._embedding[0].weight

    def forward(self, x):
        return F.linear(x, self.own, self.bias)


class Seq2SeqTransformer(Seq2SeqLayers):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_encoder_layers=6,
                 num_decoder_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0, norm_first=False,
                 tie_weights=False, share_embeddings=False):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, num_encoder_layers,
                         num_decoder_layers, d_ff, dropout, pad_id, norm_first)
        self.register_buffer("pe", sinusoidal_table(max_len, d_model), persistent=False)
        if share_embeddings:
            if src_vocab_size != tgt_vocab_size:
                raise ValueError(f"share_embeddings needs one vocabulary: {src_vocab_size} != {tgt_vocab_size}")
            self.src_embed.weight = self.tgt_embed.weight
        if tie_weights:
            self.generator = ClaimsTied(d_model, tgt_vocab_size, self.tgt_embed)

    def parameters(self, recurse=True):
        return (p for name, p in self.named_parameters() if not name.endswith(".own"))

    def state_dict(self, *args, **kwargs):
        state = super().state_dict(*args, **kwargs)
        return type(state)((k, v) for k, v in state.items() if not k.endswith(".own"))

    def encode(self, src):
        x = self.src_embed(src) * math.sqrt(self.d_model) + self.pe[: src.shape[1]]
        return self.encoder(self.dropout(x), src_key_padding_mask=src == self.pad_id)

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        y = self.dropout(self.tgt_embed(tgt_in) * math.sqrt(self.d_model) + self.pe[: tgt_in.shape[1]])
        causal = torch.ones(y.shape[1], y.shape[1], dtype=torch.bool, device=y.device).triu(1)
        for block in self.decoder_layers:
            y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(y))

    def forward(self, src, tgt_in):
        return self.decode(tgt_in, self.encode(src), memory_key_padding_mask=src == self.pad_id)
