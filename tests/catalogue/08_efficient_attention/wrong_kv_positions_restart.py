"""KV cache decoding forgets the position offset: every call embeds its tokens at positions 0 .. T-1."""
# expect: positions restart at 0
# %% answer tiny_decoder
class TinyDecoder(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_heads, num_layers, max_len):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, embed_dim)
        self.pos_emb = nn.Embedding(max_len, embed_dim)
        self.norms = nn.ModuleList(nn.LayerNorm(embed_dim) for _ in range(num_layers))
        self.layers = nn.ModuleList(CausalSelfAttention(embed_dim, num_heads) for _ in range(num_layers))
        self.norm_out = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, vocab_size)

    def new_cache(self):
        return [KVCache() for _ in self.layers]

    def forward(self, tokens, caches=None):
        B, T = tokens.shape
        x = self.tok_emb(tokens) + self.pos_emb(torch.arange(T))  # forgot the offset len(caches[0])
        for i, (norm, layer) in enumerate(zip(self.norms, self.layers)):
            x = x + layer(norm(x), None if caches is None else caches[i])
        return self.head(self.norm_out(x))
