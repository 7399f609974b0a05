"""Heads handled with einsum: per-head scores and outputs without explicit transposes."""
# %% answer split_heads
def split_heads(x, num_heads):
    B, L, E = x.shape
    return torch.einsum("blhd->bhld", x.reshape(B, L, num_heads, E // num_heads))
# %% answer merge_heads
def merge_heads(x):
    B, H, L, d = x.shape
    return torch.einsum("bhld->blhd", x).reshape(B, L, H * d)
# %% answer mha
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"{embed_dim} features cannot be cut into {num_heads} equal heads")
        self.h, self.p = num_heads, dropout
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Linear(embed_dim, embed_dim, bias=bias) for _ in range(4))

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, E = query.shape
        S, H = key.shape[1], self.h
        d = E // H
        q = self.q_proj(query).view(B, L, H, d)
        k = self.k_proj(key).view(B, S, H, d)
        v = self.v_proj(value).view(B, S, H, d)
        scores = torch.einsum("blhd,bshd->bhls", q, k) * d ** -0.5
        if attn_mask is not None:
            m = attn_mask.reshape(B, H, L, S) if attn_mask.dim() == 3 else attn_mask
            scores = scores.masked_fill(m, -math.inf) if m.dtype == torch.bool else scores + m
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask.view(B, 1, 1, S), -math.inf)
        w = F.dropout(scores.softmax(-1), self.p, self.training)
        out = self.out_proj(torch.einsum("bhls,bshd->blhd", w, v).reshape(B, L, E))
        if not need_weights:
            return out, None
        return out, (w.mean(1) if average_attn_weights else w)
