"""norm_first is stored but ignored: the block always computes post-norm."""
# expect: norm_first is ignored
# %% answer encoder_block
class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        if activation not in ("relu", "gelu"):
            raise ValueError(f"unknown activation {activation!r}")
        self.activation = F.relu if activation == "relu" else F.gelu
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def sa(self, h, key_padding_mask, attn_mask):
        return self.dropout1(self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask, need_weights=False)[0])

    def ff(self, h):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        x = self.norm1(x + self.sa(x, key_padding_mask, attn_mask))
        x = self.norm2(x + self.ff(x))
        return x
