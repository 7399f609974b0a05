"""Decoder block written as a loop over (norm, sublayer) pairs, activation via nn modules."""
# %% answer decoder_block
class TransformerDecoderBlock(nn.Module):
    """Masked self-attention -> cross-attention -> FFN, each with residual + LayerNorm."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.multihead_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.norm_first = norm_first
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))
        self.drops = nn.ModuleList(nn.Dropout(dropout) for _ in range(4))
        self.act = nn.ReLU() if activation == "relu" else nn.GELU()

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """tgt (B, T, E), memory (B, S, E) -> (B, T, E)."""
        sublayers = [
            (self.norm1, lambda x: self.self_attn(x, x, x, key_padding_mask=tgt_key_padding_mask,
                                                  attn_mask=tgt_mask)[0]),
            (self.norm2, lambda x: self.multihead_attn(x, memory, memory, key_padding_mask=memory_key_padding_mask,
                                                       attn_mask=memory_mask)[0]),
            (self.norm3, lambda x: self.linear2(self.drops[3](self.act(self.linear1(x))))),
        ]
        x = tgt
        for i, (norm, f) in enumerate(sublayers):
            if self.norm_first:
                x = x + self.drops[i](f(norm(x)))
            else:
                x = norm(x + self.drops[i](f(x)))
        return x
