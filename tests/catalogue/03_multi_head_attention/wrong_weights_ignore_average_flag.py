"""average_attn_weights is ignored: the averaged weights are always returned."""
# expect: one map per head
# %% answer mha
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.num_heads, self.head_dim, self.dropout = num_heads, embed_dim // num_heads, dropout
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, S, H = query.shape[0], query.shape[1], key.shape[1], self.num_heads
        q = split_heads(self.q_proj(query), H)
        k = split_heads(self.k_proj(key), H)
        v = split_heads(self.v_proj(value), H)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if attn_mask is not None:
            if attn_mask.dim() == 3:
                attn_mask = attn_mask.view(B, H, L, S)
            if attn_mask.dtype == torch.bool:
                scores = scores.masked_fill(attn_mask, float("-inf"))
            else:
                scores = scores + attn_mask
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = F.dropout(weights, p=self.dropout, training=self.training)
        output = self.out_proj(merge_heads(weights @ v))
        if not need_weights:
            return output, None
        return output, weights.mean(dim=1)
