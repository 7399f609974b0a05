"""GQA shares heads with a Llama-style repeat_kv helper (expand + reshape); the window mask from a distance matrix i - j."""
# %% answer gqa
def repeat_kv(x, n_rep):
    """(B, G, L, d) -> (B, G * n_rep, L, d): each key/value head repeated n_rep times in a row."""
    if n_rep == 1:
        return x
    B, G, L, d = x.shape
    return x[:, :, None, :, :].expand(B, G, n_rep, L, d).reshape(B, G * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    """Self-attention whose num_heads query heads share num_kv_heads key/value heads."""

    def __init__(self, embed_dim, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be a multiple of num_heads ({num_heads})")
        if num_heads % num_kv_heads:
            raise ValueError(f"num_heads ({num_heads}) must be a multiple of num_kv_heads ({num_kv_heads})")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = embed_dim // num_heads
        self.n_rep = num_heads // num_kv_heads
        self.q_proj = nn.Linear(embed_dim, num_heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, num_kv_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, num_kv_heads * self.head_dim, bias=bias)
        self.out_proj = nn.Linear(num_heads * self.head_dim, embed_dim, bias=bias)

    def forward(self, x, mask=None):
        """x (B, L, E), allowed-mask broadcastable to (B, H, L, L) -> (B, L, E)."""
        bsz, seq_len, _ = x.shape
        q = self.q_proj(x).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        k, v = repeat_kv(k, self.n_rep), repeat_kv(v, self.n_rep)
        out = naive_attention(q, k, v, mask)
        return self.out_proj(out.transpose(1, 2).contiguous().view(bsz, seq_len, -1))
# %% answer sliding_window
def sliding_window_mask(size, window, device=None):
    """(size, size) bool allowed-mask: query i sees keys i - window + 1 .. i."""
    if window < 1:
        raise ValueError(f"the window must hold at least one key (window >= 1), got window={window}")
    pos = torch.arange(size, device=device)
    distance = pos.unsqueeze(1) - pos.unsqueeze(0)  # i - j
    return distance.ge(0).logical_and(distance.lt(window))
