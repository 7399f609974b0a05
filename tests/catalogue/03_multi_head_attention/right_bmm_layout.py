"""PyTorch's own layout: heads folded into the batch, (B·H, L, d_k), with torch.bmm; masks expanded to (B·H, L, S)."""
# %% answer split_heads
def split_heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).permute(0, 2, 1, 3)
# %% answer merge_heads
def merge_heads(x):
    return x.permute(0, 2, 1, 3).flatten(2)
# %% answer mha
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim %d %% num_heads %d != 0" % (embed_dim, num_heads))
        self.embed_dim, self.num_heads, self.p = embed_dim, num_heads, dropout
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(embed_dim, embed_dim, bias=bias))

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, E = query.shape
        S, H = key.shape[1], self.num_heads
        d = E // H
        q = split_heads(self.q_proj(query), H).reshape(B * H, L, d)
        k = split_heads(self.k_proj(key), H).reshape(B * H, S, d)
        v = split_heads(self.v_proj(value), H).reshape(B * H, S, d)
        scores = torch.bmm(q / math.sqrt(d), k.transpose(1, 2))  # (B·H, L, S)
        if attn_mask is not None:
            m = attn_mask.expand(B * H, L, S)
            scores = scores.masked_fill(m, float("-inf")) if m.dtype == torch.bool else scores + m
        if key_padding_mask is not None:
            pad = key_padding_mask[:, None, None, :].expand(B, H, L, S).reshape(B * H, L, S)
            scores = scores.masked_fill(pad, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        if self.training and self.p > 0:
            w = F.dropout(w, self.p)
        out = self.out_proj(merge_heads(torch.bmm(w, v).view(B, H, L, d)))
        if not need_weights:
            return out, None
        w = w.view(B, H, L, S)
        return out, w.mean(dim=1) if average_attn_weights else w
