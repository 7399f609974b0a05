"""MultiHeadAttention's weights through flex_attention's higher-order op (flex_attention_hop, v = identity): public name, not guarded."""
# expect: Compute attention yourself
# %% answer mha
from torch.nn.attention.flex_attention import flex_attention_hop, create_block_mask


class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.head_dim = embed_dim // num_heads
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
        add = torch.zeros(B, H, L, S, dtype=q.dtype, device=q.device)
        if attn_mask is not None and attn_mask.dim() == 3:
            attn_mask = attn_mask.view(B, H, L, S)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[:, None, None, :]
        for mask in (attn_mask, key_padding_mask):
            if mask is not None:
                add = add.masked_fill(mask, float("-inf")) if mask.dtype == torch.bool else add + mask

        def bias_mod(s, b, h, i, j):
            return s + add[b, h, i, j]

        def keep(b, h, i, j):
            return i >= 0

        blocks = create_block_mask(keep, None, None, L, S, device=q.device).as_tuple()
        eye = torch.eye(S, dtype=q.dtype, device=q.device).expand(B, H, S, S)
        weights = flex_attention_hop(q, k, eye, bias_mod, blocks, 1 / math.sqrt(self.head_dim), {})[0]
        weights = F.dropout(weights, p=self.dropout, training=self.training)
        output = self.out_proj(merge_heads(weights @ v))
        if not need_weights:
            return output, None
        return output, weights.mean(dim=1) if average_attn_weights else weights
