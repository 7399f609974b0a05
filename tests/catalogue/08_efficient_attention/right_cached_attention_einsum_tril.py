"""Cached attention with einsum, its own softmax and a tril(diagonal=offset) allowed-mask."""
# %% answer cached_attention
class CausalSelfAttention(nn.Module):
    """Causal multi-head self-attention that can decode incrementally with a KVCache."""

    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x, cache=None):
        """x (B, T, E): the T newest positions -> (B, T, E); with a cache, also attend to the cached ones."""
        B, T, E = x.shape
        H, d = self.num_heads, self.head_dim
        offset = len(cache) if cache is not None else 0  # cached positions before this call

        def heads(t):
            return t.reshape(B, T, H, d).permute(0, 2, 1, 3)  # (B, H, T, d)

        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        if cache is not None:
            k, v = cache.append(k, v)  # (B, H, offset + T, d)
        # new token t (absolute position offset + t) sees keys j <= offset + t: tril shifted right by offset
        allowed = torch.ones(T, k.shape[-2], dtype=torch.bool, device=x.device).tril(diagonal=offset)
        scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(d)
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = torch.einsum("bhts,bhsd->bhtd", weights, v)
        return self.out_proj(out.permute(0, 2, 1, 3).reshape(B, T, E))
