"""The encoder block calls nn.LayerNorm and names it in an isinstance and in a type annotation (allowed since issue 33:
the forbidden-name scan judges what is called, and only inside LayerNorm)."""
# %% answer encoder_block
class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        if activation not in ("relu", "gelu"):
            raise ValueError(f"unknown activation {activation!r}")
        self.act = F.relu if activation == "relu" else F.gelu
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1: nn.LayerNorm = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        assert all(isinstance(n, nn.LayerNorm) for n in (self.norm1, self.norm2))
        self.drop, self.drop1, self.drop2 = nn.Dropout(dropout), nn.Dropout(dropout), nn.Dropout(dropout)

    def _sa(self, h, key_padding_mask, attn_mask):
        out = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask, need_weights=False)[0]
        return self.drop1(out)

    def _ff(self, h):
        return self.drop2(self.linear2(self.drop(self.act(self.linear1(h)))))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        if self.norm_first:
            x = x + self._sa(self.norm1(x), key_padding_mask, attn_mask)
            return x + self._ff(self.norm2(x))
        x = self.norm1(x + self._sa(x, key_padding_mask, attn_mask))
        return self.norm2(x + self._ff(x))
