"""An answer written from the student notebook alone, without the reference: every stub."""

# %% answer feedforward
class FeedForward(nn.Module):
    """Position-wise feed-forward network: linear2(dropout(act(linear1(x))))."""

    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        acts = {"relu": F.relu, "gelu": F.gelu}
        if activation not in acts:
            raise ValueError(f"unknown activation {activation!r}: use 'relu' or 'gelu'")
        self.act = acts[activation]
        self.linear1 = nn.Linear(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        hidden = self.act(self.linear1(x))
        return self.linear2(self.dropout(hidden))


# %% answer layer_norm
class LayerNorm(nn.Module):
    """(x - mean) / sqrt(var + eps) * weight + bias, over the trailing normalized_shape dimensions."""

    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(n) for n in normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))

    def forward(self, x):
        axes = tuple(range(-len(self.normalized_shape), 0))
        var, mean = torch.var_mean(x, dim=axes, correction=0, keepdim=True)
        normed = (x - mean) / torch.sqrt(var + self.eps)
        return (normed * self.weight + self.bias).to(x.dtype)


# %% answer rms_norm
class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) * weight, over the trailing normalized_shape dimensions: no centring, no bias."""

    def __init__(self, normalized_shape, eps=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(n) for n in normalized_shape)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps if self.eps is None else self.eps
        axes = tuple(range(-len(self.normalized_shape), 0))
        mean_sq = x.pow(2).mean(dim=axes, keepdim=True)
        return (x * torch.rsqrt(mean_sq + eps) * self.weight).to(x.dtype)


# %% answer encoder_block
class TransformerEncoderBlock(nn.Module):
    """Self-attention and feed-forward sublayers with residuals and LayerNorm (post- or pre-norm)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        # Given: PyTorch's attention, so that nn.TransformerEncoderLayer weights load into this block.
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        acts = {"relu": F.relu, "gelu": F.gelu}
        if activation not in acts:
            raise ValueError(f"unknown activation {activation!r}: use 'relu' or 'gelu'")
        self.activation = acts[activation]
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)   # inside the FFN
        self.dropout1 = nn.Dropout(dropout)  # after attention
        self.dropout2 = nn.Dropout(dropout)  # after the FFN

    def _attend(self, h, key_padding_mask, attn_mask):
        out = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask, need_weights=False)[0]
        return self.dropout1(out)

    def _ffn(self, h):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        if self.norm_first:
            x = x + self._attend(self.norm1(x), key_padding_mask, attn_mask)
            x = x + self._ffn(self.norm2(x))
        else:
            x = self.norm1(x + self._attend(x, key_padding_mask, attn_mask))
            x = self.norm2(x + self._ffn(x))
        return x


# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    """Mean of x (B, L, E) over the positions where key_padding_mask (B, L) is False."""
    real = ~key_padding_mask.to(torch.bool)  # (B, L)
    summed = x.masked_fill(~real.unsqueeze(-1), 0.0).sum(dim=1)  # (B, E)
    count = real.sum(dim=1, keepdim=True).clamp(min=1).to(x.dtype)  # (B, 1); all-padding rows give 0 / 1
    return summed / count


# %% answer classifier
class TransformerClassifier(nn.Module):
    """Token + position embeddings, encoder blocks, CLS or masked-mean pooling, linear head."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling not in ("cls", "mean"):
            raise ValueError(f"pooling must be 'cls' or 'mean', got pooling={pooling!r}")
        self.pooling = pooling
        self.pad_id = pad_id
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        if pooling == "cls":
            self.cls_token = nn.Parameter(torch.randn(1, 1, d_model) * 0.02)
        self.position_embedding = nn.Embedding(max_len + 1, d_model)
        self.embed_dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(
            TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout, norm_first=norm_first)
            for _ in range(num_layers)
        )
        self.final_norm = nn.LayerNorm(d_model) if norm_first else None
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        if key_padding_mask is None:
            key_padding_mask = token_ids == self.pad_id
        key_padding_mask = key_padding_mask.to(torch.bool)
        h = self.token_embedding(token_ids)  # (B, L, E)
        B = h.shape[0]
        if self.pooling == "cls":
            h = torch.cat([self.cls_token.expand(B, -1, -1), h], dim=1)
            no_pad = torch.zeros(B, 1, dtype=torch.bool, device=key_padding_mask.device)
            key_padding_mask = torch.cat([no_pad, key_padding_mask], dim=1)
        positions = torch.arange(h.shape[1], device=h.device)
        h = self.embed_dropout(h + self.position_embedding(positions))
        for block in self.blocks:
            h = block(h, key_padding_mask=key_padding_mask)
        if self.final_norm is not None:
            h = self.final_norm(h)
        pooled = h[:, 0] if self.pooling == "cls" else masked_mean_pool(h, key_padding_mask)
        return self.head(pooled)


# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    """Indices sorted by length and cut into batches of batch_size; batch order shuffled if asked."""
    sizes = [int(n) for n in lengths]
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])  # stable sort by length
    batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
    if shuffle:
        random.Random(seed).shuffle(batches)
    return batches
