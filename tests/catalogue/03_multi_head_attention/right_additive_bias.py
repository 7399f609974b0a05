"""Folds both masks into one additive float bias (bool masks become 0 / -inf) before a single softmax."""
# %% answer mha
class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be divisible by num_heads: "
                             f"got embed_dim={embed_dim}, num_heads={num_heads}")
        self.num_heads = num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    @staticmethod
    def as_bias(mask, dtype):
        """A float mask as it is; a boolean one (True = blocked) as 0 / -inf."""
        if mask.dtype == torch.bool:
            return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
        return mask.to(dtype)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, E = query.shape
        S, H = key.shape[1], self.num_heads
        q, k, v = (split_heads(proj(x), H) for proj, x in
                   ((self.q_proj, query), (self.k_proj, key), (self.v_proj, value)))
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(E // H)
        bias = torch.zeros((), dtype=scores.dtype, device=scores.device)
        if attn_mask is not None:
            mask = attn_mask.view(B, H, L, S) if attn_mask.dim() == 3 else attn_mask
            bias = bias + self.as_bias(mask, scores.dtype)
        if key_padding_mask is not None:
            bias = bias + self.as_bias(key_padding_mask, scores.dtype)[:, None, None, :]
        weights = F.softmax(scores + bias, dim=-1)
        weights = F.dropout(weights, self.dropout, self.training)
        out = self.out_proj(merge_heads(torch.matmul(weights, v)))
        if need_weights:
            return out, (weights.mean(1) if average_attn_weights else weights)
        return out, None
