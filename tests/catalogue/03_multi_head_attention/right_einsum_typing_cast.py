"""einsum for scores and values, typing.cast on the optional weights, scale applied to q before the product."""
# %% answer mha
from typing import Optional, cast


class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"cannot split embed_dim={embed_dim} into num_heads={num_heads} equal heads")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, E = query.shape
        S = key.shape[1]
        q = split_heads(self.q_proj(query), self.num_heads) * self.head_dim ** -0.5
        k = split_heads(self.k_proj(key), self.num_heads)
        v = split_heads(self.v_proj(value), self.num_heads)
        scores = torch.einsum("bhld,bhsd->bhls", q, k)
        if attn_mask is not None:
            mask = attn_mask if attn_mask.dim() == 2 else attn_mask.unflatten(0, (B, self.num_heads))
            if mask.dtype == torch.bool:
                scores = scores.masked_fill(mask, float("-inf"))
            else:
                scores = scores + mask
        if key_padding_mask is not None:
            scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        probs = F.dropout(scores.softmax(dim=-1), p=self.dropout, training=self.training)
        context = torch.einsum("bhls,bhsd->bhld", probs, v)
        output = self.out_proj(merge_heads(context))
        weights: Optional[torch.Tensor] = None
        if need_weights:
            weights = probs.mean(dim=1) if average_attn_weights else probs
        return output, cast(Optional[torch.Tensor], weights)
