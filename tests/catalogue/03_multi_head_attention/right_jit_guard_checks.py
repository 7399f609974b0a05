"""Input checks under `if not torch.jit.is_scripting()`, heads split inline with reshape/transpose, a scale attribute."""
# %% answer mha
class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not a multiple of num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.scale = 1.0 / math.sqrt(embed_dim // num_heads)  # 1/√d_k with the head size d_k
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        if not torch.jit.is_scripting():
            if query.dim() != 3 or key.shape != value.shape:
                raise ValueError(f"expected (B, L, E) inputs, got {tuple(query.shape)} and {tuple(key.shape)}")
            if key_padding_mask is not None and key_padding_mask.shape != key.shape[:2]:
                raise ValueError(f"key_padding_mask must be (B, S) = {tuple(key.shape[:2])}")
        B, L, E = query.shape
        S, H = key.size(1), self.num_heads
        q = self.q_proj(query).reshape(B, L, H, -1).transpose(1, 2)
        k = self.k_proj(key).reshape(B, S, H, -1).transpose(1, 2)
        v = self.v_proj(value).reshape(B, S, H, -1).transpose(1, 2)
        scores = (q @ k.transpose(-1, -2)) * self.scale
        if attn_mask is not None:
            if attn_mask.dim() == 3:
                attn_mask = attn_mask.reshape(B, H, L, S)
            scores = scores.masked_fill(attn_mask, -math.inf) if attn_mask.dtype == torch.bool else scores + attn_mask
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask.reshape(B, 1, 1, S), -math.inf)
        attn = F.dropout(F.softmax(scores, dim=-1), p=self.dropout, training=self.training)
        out = (attn @ v).transpose(1, 2).reshape(B, L, E)
        out = self.out_proj(out)
        if not need_weights:
            return out, None
        return out, attn.mean(dim=1) if average_attn_weights else attn
