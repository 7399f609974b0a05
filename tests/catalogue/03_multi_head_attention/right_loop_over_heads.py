"""Computes each head in a Python loop over column slices of the projections and concatenates them."""
# %% answer mha
class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"{embed_dim} features cannot be cut into {num_heads} heads")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, _ = query.shape
        S, d = key.shape[1], self.head_dim
        Q, K, V = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        outputs, all_weights = [], []
        for h in range(self.num_heads):
            cols = slice(h * d, (h + 1) * d)  # head h owns features h·d .. (h+1)·d - 1
            scores = Q[..., cols] @ K[..., cols].transpose(1, 2) / math.sqrt(d)  # (B, L, S)
            if attn_mask is not None:
                # a 3-D mask is (B·H, L, S) with row b·H + h: rows h, h + H, h + 2H, ... belong to head h
                m = attn_mask[h::self.num_heads] if attn_mask.dim() == 3 else attn_mask
                scores = scores.masked_fill(m, float("-inf")) if m.dtype == torch.bool else scores + m
            if key_padding_mask is not None:
                scores = scores.masked_fill(key_padding_mask.unsqueeze(1), float("-inf"))
            weights = F.dropout(scores.softmax(-1), self.dropout, training=self.training)
            outputs.append(weights @ V[..., cols])  # (B, L, d)
            all_weights.append(weights)
        out = self.out_proj(torch.cat(outputs, dim=-1))
        if not need_weights:
            return out, None
        per_head = torch.stack(all_weights, dim=1)  # (B, H, L, S)
        return out, per_head.mean(1) if average_attn_weights else per_head
