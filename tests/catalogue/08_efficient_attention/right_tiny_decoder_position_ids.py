"""TinyDecoder builds expanded position ids from the cache length and walks norms, layers and caches with zip(strict=True)."""
# %% answer tiny_decoder
class TinyDecoder(nn.Module):
    """A small decoder-only language model: embeddings, pre-norm causal self-attention layers, logits."""

    def __init__(self, vocab_size, embed_dim, num_heads, num_layers, max_len):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, embed_dim)
        self.pos_emb = nn.Embedding(max_len, embed_dim)
        self.norms = nn.ModuleList(nn.LayerNorm(embed_dim) for _ in range(num_layers))
        self.layers = nn.ModuleList(CausalSelfAttention(embed_dim, num_heads) for _ in range(num_layers))
        self.norm_out = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, vocab_size)

    def new_cache(self):
        """One empty KVCache per layer."""
        return [KVCache() for _ in self.layers]

    def forward(self, tokens, caches=None):
        """tokens (B, T) -> logits (B, T, vocab); with caches, the tokens continue the cached sequence."""
        B, T = tokens.shape
        start = len(caches[0]) if caches else 0  # read before any layer appends to its cache
        position_ids = torch.arange(start, start + T, device=tokens.device).expand(B, T)
        h = self.tok_emb(tokens) + self.pos_emb(position_ids)
        layer_caches = caches if caches is not None else [None] * len(self.layers)
        for norm, layer, cache in zip(self.norms, self.layers, layer_caches, strict=True):
            h = h + layer(norm(h), cache)
        return self.head(self.norm_out(h))
