"""GQA without copying key/value heads: queries reshaped to (B, G, H/G, L, d) broadcast against (B, G, 1, L, d)."""
# %% answer gqa
class GroupedQueryAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if embed_dim % num_heads or num_heads % num_kv_heads:
            raise ValueError(f"need embed_dim={embed_dim} divisible by num_heads={num_heads} "
                             f"and num_heads={num_heads} divisible by num_kv_heads={num_kv_heads}")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, num_kv_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, num_kv_heads * self.head_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, x, mask=None):
        B, L, E = x.shape
        H, G, d = self.num_heads, self.num_kv_heads, self.head_dim
        q = self.q_proj(x).view(B, L, G, H // G, d).permute(0, 2, 3, 1, 4)  # (B, G, H/G, L, d)
        k = self.k_proj(x).view(B, L, G, d).permute(0, 2, 1, 3)  # (B, G, L, d)
        v = self.v_proj(x).view(B, L, G, d).permute(0, 2, 1, 3)  # (B, G, L, d)
        s = torch.einsum("bgrld,bgsd->bgrls", q, k) / math.sqrt(d)  # (B, G, H/G, L, L)
        if mask is not None:  # (..., L, L) broadcast to all heads, then split heads into groups
            m = torch.broadcast_to(mask, (B, H, L, L)).reshape(B, G, H // G, L, L)
            s = s.masked_fill(~m, float("-inf"))
        out = torch.einsum("bgrls,bgsd->bgrld", torch.softmax(s, dim=-1), v)  # (B, G, H/G, L, d)
        return self.out_proj(out.permute(0, 3, 1, 2, 4).reshape(B, L, E))
