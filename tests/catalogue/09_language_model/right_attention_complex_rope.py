"""Attention with its own RoPE (pairs as complex numbers) and a hand-written masked softmax."""
# %% answer attention
class KVCache:
    """Given (notebook 08 graded it): the keys and values of the positions seen so far, for one layer."""

    def __init__(self):
        self.keys = self.values = None

    def __len__(self):
        return 0 if self.keys is None else self.keys.shape[-2]

    def append(self, k, v):
        if self.keys is None:
            self.keys, self.values = k, v
        else:
            self.keys, self.values = torch.cat([self.keys, k], dim=-2), torch.cat([self.values, v], dim=-2)
        return self.keys, self.values

class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.h = num_heads
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(embed_dim, embed_dim, bias=False))

    def rotate(self, x, start):
        d = x.shape[-1]
        pos = torch.arange(start, start + x.shape[-2], dtype=torch.float64)
        angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (T, d/2)
        z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
        return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).flatten(-2).to(x.dtype)

    def forward(self, x, cache=None):
        B, T, E = x.shape
        past = len(cache) if cache is not None else 0
        q, k, v = (p(x).reshape(B, T, self.h, -1).permute(0, 2, 1, 3) for p in (self.q_proj, self.k_proj, self.v_proj))
        q, k = self.rotate(q, past), self.rotate(k, past)
        if cache is not None:
            k, v = cache.append(k, v)
        scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(q.shape[-1])  # (B, H, T, S)
        future = torch.arange(k.shape[-2])[None, :] > torch.arange(past, past + T)[:, None]
        w = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.out_proj(torch.einsum("bhts,bhsd->bthd", w, v).reshape(B, T, E))
