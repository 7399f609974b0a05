"""DecoderBlock names its normalised inputs; LanguageModel defaults caches to [None] * n and checks their number."""
# %% answer decoder_block
class DecoderBlock(nn.Module):
    """Pre-norm decoder block: x + attn(norm1(x)), then x + ffn(norm2(x))."""

    def __init__(self, embed_dim, num_heads, d_ff):
        super().__init__()
        self.norm1 = RMSNorm(embed_dim)
        self.attn = CausalSelfAttention(embed_dim, num_heads)
        self.norm2 = RMSNorm(embed_dim)
        self.ffn = SwiGLUFeedForward(embed_dim, d_ff)

    def forward(self, x, cache=None):
        h = self.norm1(x)
        x = x + self.attn(h, cache)  # the residual stream itself is never normalised
        h = self.norm2(x)
        return x + self.ffn(h)
# %% answer language_model
class LanguageModel(nn.Module):
    """Token embedding, pre-norm decoder blocks, final RMSNorm, linear head."""

    def __init__(self, vocab_size, embed_dim, num_heads, num_layers, d_ff):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.blocks = nn.ModuleList([DecoderBlock(embed_dim, num_heads, d_ff) for _ in range(num_layers)])
        self.norm = RMSNorm(embed_dim)
        self.head = nn.Linear(embed_dim, vocab_size, bias=False)

    def new_cache(self):
        """One empty KVCache per block."""
        return [KVCache() for _ in self.blocks]

    def forward(self, tokens, caches=None):
        if caches is None:
            caches = [None] * len(self.blocks)
        elif len(caches) != len(self.blocks):
            raise ValueError(f"expected one cache per block ({len(self.blocks)}), got {len(caches)}")
        x = self.embed(tokens)  # (B, T, E); RoPE inside the attention gives the positions
        for block, cache in zip(self.blocks, caches):
            x = block(x, cache)
        return self.head(self.norm(x))
