"""Dropout on the weights written as torch.dropout(w, self.dropout, self.training), as PyTorch's own math reference does."""
# %% answer mha
class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim {embed_dim} is not divisible by num_heads {num_heads}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, _ = query.shape
        S, H = key.shape[1], self.num_heads
        q = split_heads(self.q_proj(query), H)
        k = split_heads(self.k_proj(key), H)
        v = split_heads(self.v_proj(value), H)
        w = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(self.head_dim))  # (B, H, L, S)
        if attn_mask is not None:
            if attn_mask.dim() == 3:  # (B·H, L, S), batch-major
                attn_mask = attn_mask.reshape(B, H, L, S)
            if attn_mask.dtype == torch.bool:
                w = w.masked_fill(attn_mask, float("-inf"))
            else:
                w = w + attn_mask
        if key_padding_mask is not None:
            w = w.masked_fill(key_padding_mask.view(B, 1, 1, S), float("-inf"))
        w = torch.softmax(w, dim=-1)
        w = torch.dropout(w, self.dropout, self.training)  # the same call F.dropout makes
        out = self.out_proj(merge_heads(w @ v))
        if not need_weights:
            return out, None
        if average_attn_weights:
            w = w.mean(dim=1)
        return out, w
