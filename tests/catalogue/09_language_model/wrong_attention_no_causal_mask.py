"""Attention without the causal mask: every position sees the future."""
# expect: no causal mask
# %% answer attention
class KVCache:
    """Given (notebook 08 graded it): the keys and values of the positions seen so far, for one layer."""

    def __init__(self):
        self.keys = self.values = None  # (B, H, T, d) once something is cached

    def __len__(self):
        return 0 if self.keys is None else self.keys.shape[-2]

    def append(self, k, v):  # (B, H, T_new, d) each: add at the end, return all cached (keys, values)
        if self.keys is None:
            self.keys, self.values = k, v
        else:  # (B, H, past + T_new, d)
            self.keys, self.values = torch.cat([self.keys, k], dim=-2), torch.cat([self.values, v], dim=-2)
        return self.keys, self.values

class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=False)

    def forward(self, x, cache=None):
        (B, T, E), H, d = x.shape, self.num_heads, self.head_dim
        past = 0 if cache is None else len(cache)  # absolute position of x[:, 0]
        q, k, v = (p(x).view(B, T, H, d).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))  # (B, H, T, d)
        positions = torch.arange(past, past + T, device=x.device)
        q, k = rotary_embedding(q, positions), rotary_embedding(k, positions)  # keys rotated before caching
        if cache is not None:
            k, v = cache.append(k, v)  # (B, H, past + T, d)
        allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= positions[:, None]  # (T, past + T)
        out = F.scaled_dot_product_attention(q, k, v)  # (B, H, T, d)
        return self.out_proj(out.transpose(1, 2).reshape(B, T, E))  # (B, T, E)
