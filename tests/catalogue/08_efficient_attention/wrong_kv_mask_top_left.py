"""KV cache: the causal mask forgets the position offset (top-left tril(T, S), as is_causal=True does)."""
# expect: len(cache) + t
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
        H, d = self.num_heads, self.head_dim
        q = self.q_proj(x).view(B, T, H, d).transpose(1, 2)
        k = self.k_proj(x).view(B, T, H, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)
        if cache is not None:
            k, v = cache.append(k, v)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # top-left: ignores the cached past
        return self.out_proj(out.transpose(1, 2).reshape(B, T, E))
