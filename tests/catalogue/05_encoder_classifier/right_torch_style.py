"""nn.Sequential FFN, a block with _sa_block/_ff_block helpers (PyTorch's layout), einsum mean pool, descending sort with random.Random."""
# %% answer feedforward
class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        act = {"relu": nn.ReLU, "gelu": nn.GELU}.get(activation)
        if act is None:
            raise ValueError(f"activation {activation} is not supported (relu or gelu)")
        self.net = nn.Sequential(nn.Linear(d_model, d_ff), act(), nn.Dropout(dropout), nn.Linear(d_ff, d_model))

    def forward(self, x):
        return self.net(x)
# %% answer encoder_block
class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1, self.norm2 = nn.LayerNorm(d_model, eps=1e-5), nn.LayerNorm(d_model, eps=1e-5)
        self.dropout, self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout), nn.Dropout(dropout)
        if activation == "relu":
            self.activation = nn.ReLU()
        elif activation == "gelu":
            self.activation = nn.GELU()
        else:
            raise ValueError(f"activation should be relu/gelu, not {activation}")
        self.norm_first = norm_first

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), attn_mask, key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, attn_mask, key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    weights = (~key_padding_mask).to(x.dtype)
    weights = weights / weights.sum(-1, keepdim=True).clamp_min(1)
    return torch.einsum("bl,ble->be", weights, x)
# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    import random
    lengths = [int(n) for n in lengths]
    order = sorted(range(len(lengths)), key=lambda i: lengths[i], reverse=True)
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if shuffle:
        random.Random(seed).shuffle(batches)
    return batches
