"""GQA key/value heads expanded with .repeat (query head h reads h % G) instead of repeat_interleave."""
# expect: tiled with .repeat
# %% answer gqa
class GroupedQueryAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        if num_heads % num_kv_heads != 0:
            raise ValueError(f"num_heads={num_heads} is not divisible by num_kv_heads={num_kv_heads}")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = embed_dim // num_heads
        kv_dim = num_kv_heads * self.head_dim
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, x, mask=None):
        B, L, E = x.shape
        H, G, d = self.num_heads, self.num_kv_heads, self.head_dim
        q = self.q_proj(x).view(B, L, H, d).transpose(1, 2)
        k = self.k_proj(x).view(B, L, G, d).transpose(1, 2).repeat(1, H // G, 1, 1)
        v = self.v_proj(x).view(B, L, G, d).transpose(1, 2).repeat(1, H // G, 1, 1)
        out = naive_attention(q, k, v, mask)
        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))
