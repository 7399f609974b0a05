"""Block written with F.layer_norm / F.linear on its own modules' weights, FFN with string dispatch, sum/count pooling."""
# %% answer feedforward
class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        if activation not in ("relu", "gelu"):
            raise ValueError("activation must be relu or gelu, got " + str(activation))
        self.kind = activation
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.p = dropout

    def forward(self, x):
        h = self.linear1(x)
        h = torch.relu(h) if self.kind == "relu" else F.gelu(h)
        return self.linear2(F.dropout(h, self.p, self.training))
# %% answer encoder_block
class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        if activation not in ("relu", "gelu"):
            raise ValueError(f"bad activation {activation}")
        self.kind, self.p, self.norm_first = activation, dropout, norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def _norm(self, norm, x):
        return F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        def attend(h):
            out, _ = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask, need_weights=False)
            return F.dropout(out, self.p, self.training)

        def ffn(h):
            h = F.linear(h, self.linear1.weight, self.linear1.bias)
            h = F.relu(h) if self.kind == "relu" else F.gelu(h)
            h = F.dropout(h, self.p, self.training)
            return F.dropout(F.linear(h, self.linear2.weight, self.linear2.bias), self.p, self.training)

        if not self.norm_first:
            x = self._norm(self.norm1, x + attend(x))
            return self._norm(self.norm2, x + ffn(x))
        x = x + attend(self._norm(self.norm1, x))
        return x + ffn(self._norm(self.norm2, x))
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    real = key_padding_mask.logical_not().to(x.dtype)  # (B, L)
    total = torch.bmm(real.unsqueeze(1), x).squeeze(1)  # (B, E)
    count = real.sum(dim=1, keepdim=True)
    return total / torch.maximum(count, torch.ones_like(count))
