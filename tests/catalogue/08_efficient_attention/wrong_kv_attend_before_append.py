"""KV cache: the new token attends to the cache before its own key/value is appended (it cannot see itself)."""
# expect: before appending to the cache
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
        past = 0 if cache is None else len(cache)
        q = self.q_proj(x).view(B, T, H, d).transpose(1, 2)
        k = self.k_proj(x).view(B, T, H, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)
        if cache is None or len(cache) == 0:
            k_all, v_all = k, v
        else:
            k_all, v_all = cache.keys, cache.values  # the old positions only
        allowed = torch.arange(k_all.shape[-2])[None, :] <= torch.arange(past, past + T)[:, None]
        out = naive_attention(q, k_all, v_all, allowed)
        if cache is not None:
            cache.append(k, v)  # appended after computing
        return self.out_proj(out.transpose(1, 2).reshape(B, T, E))
