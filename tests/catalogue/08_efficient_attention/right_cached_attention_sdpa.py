"""Cached attention through F.scaled_dot_product_attention with an explicit offset mask (bottom-right causal)."""
# %% answer cached_attention
class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, x, cache=None):
        B, T, E = x.shape
        split = lambda t: t.unflatten(-1, (self.num_heads, self.head_dim)).transpose(1, 2)  # (B, H, T, d)
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.append(k, v)
        # bottom-right aligned causal mask: the T new queries are the last T positions
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out_proj(out.transpose(1, 2).flatten(2))
