"""norm_first is ignored: the block always computes post-norm."""
# expect: norm_first is ignored
# %% answer decoder_block
class TransformerDecoderBlock(nn.Module):
    """Masked self-attention -> cross-attention -> FFN, each with residual + LayerNorm."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.multihead_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)  # inside the FFN
        self.dropout1 = nn.Dropout(dropout)  # after each sub-layer
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.activation = {"relu": F.relu, "gelu": F.gelu}[activation]

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """tgt (B, T, E), memory (B, S, E) -> (B, T, E)."""
        def self_block(x):  # queries, keys, values: the decoder itself, future masked
            out = self.self_attn(x, x, x, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask,
                                 need_weights=False)[0]
            return self.dropout1(out)

        def cross_block(x):  # queries from the decoder, keys and values from the encoder
            out = self.multihead_attn(x, memory, memory, attn_mask=memory_mask,
                                      key_padding_mask=memory_key_padding_mask, need_weights=False)[0]
            return self.dropout2(out)

        def ff_block(x):
            return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

        x = tgt
        if False:  # pre-norm: x + Sublayer(LayerNorm(x))
            x = x + self_block(self.norm1(x))
            x = x + cross_block(self.norm2(x))
            x = x + ff_block(self.norm3(x))
        else:  # post-norm: LayerNorm(x + Sublayer(x))
            x = self.norm1(x + self_block(x))
            x = self.norm2(x + cross_block(x))
            x = self.norm3(x + ff_block(x))
        return x
