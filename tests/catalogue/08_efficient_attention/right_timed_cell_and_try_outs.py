"""The red team's honest learner: tiled_attention's cell is timed with %%time and ends with a try-out on q, k, v;
the GQA cell, which may call F.scaled_dot_product_attention, checks itself on its own q, k, v."""
# %% answer tiled_attention
%%time
def tiled_attention(q, k, v, block_size, causal=False):
    """Exact attention block by block with an online softmax, never building the (L, S) matrix."""
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    out = q.new_empty(*q.shape[:-1], v.shape[-1])  # (..., L, d_v)
    for q0 in range(0, L, block_size):
        q1 = min(q0 + block_size, L)
        q_blk = q[..., q0:q1, :] * scale  # (..., bq, d)
        m = q.new_full((*q_blk.shape[:-1], 1), float("-inf"))  # running max      (..., bq, 1)
        l = q.new_zeros((*q_blk.shape[:-1], 1))  # running sum of exp(s - m)         (..., bq, 1)
        acc = q.new_zeros((*q_blk.shape[:-1], v.shape[-1]))  # sum of exp(s - m) v  (..., bq, d_v)
        for k0 in range(0, S, block_size):
            if causal and k0 > q1 - 1:
                break  # this key block (and every later one) is in the future of all bq queries
            k1 = min(k0 + block_size, S)
            s = q_blk @ k[..., k0:k1, :].transpose(-2, -1)  # (..., bq, bk)
            if causal and k1 - 1 > q0:  # the tile crosses the diagonal: block key j > query i
                future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
                s = s.masked_fill(future, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)  # (..., bq, bk)
            alpha = torch.exp(m - m_new)  # rescales what was summed under the old maximum
            l = alpha * l + p.sum(dim=-1, keepdim=True)
            acc = alpha * acc + p @ v[..., k0:k1, :]  # (..., bq, d_v)
            m = m_new
        out[..., q0:q1, :] = acc / l
    return out


q, k, v = torch.randn(8, 4), torch.randn(40, 4), torch.randn(40, 4)
print(tiled_attention(q, k, v, block_size=16).shape)

# %% answer gqa
class GroupedQueryAttention(nn.Module):
    """Self-attention whose num_heads query heads share num_kv_heads key/value heads."""

    def __init__(self, embed_dim, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        if num_heads % num_kv_heads != 0:
            raise ValueError(f"num_heads={num_heads} is not divisible by num_kv_heads={num_kv_heads}")
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = embed_dim // num_heads
        kv_dim = num_kv_heads * self.head_dim  # only G heads of keys and values
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, x, mask=None):
        """x (B, L, E), allowed-mask broadcastable to (B, H, L, L) -> (B, L, E)."""
        B, L, E = x.shape
        H, G, d = self.num_heads, self.num_kv_heads, self.head_dim
        q = self.q_proj(x).view(B, L, H, d).transpose(1, 2)  # (B, H, L, d)
        k = self.k_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
        v = self.v_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
        # query head h reads key/value head h // (H // G): consecutive heads share one
        k = k.repeat_interleave(H // G, dim=1)  # (B, H, L, d)
        v = v.repeat_interleave(H // G, dim=1)  # (B, H, L, d)
        out = naive_attention(q, k, v, mask)  # (B, H, L, d)
        return self.out_proj(out.transpose(1, 2).reshape(B, L, E))  # (B, L, E)


q, k, v = torch.randn(1, 4, 6, 8), torch.randn(1, 4, 6, 8), torch.randn(1, 4, 6, 8)
print(F.scaled_dot_product_attention(q, k, v).shape)
