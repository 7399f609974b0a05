"""TransformerClassifier keeps the pooling mode as an enum.Enum member and raises its own ValueError for unknown modes."""
# %% answer classifier
import enum


class Pooling(enum.Enum):
    CLS = "cls"
    MEAN = "mean"


class TransformerClassifier(nn.Module):
    """Token + position embeddings, encoder blocks, CLS or masked-mean pooling, linear head."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        try:
            self.pooling = Pooling(pooling)
        except ValueError:
            raise ValueError(f"pooling must be one of {[p.value for p in Pooling]}, got pooling={pooling!r}") from None
        self.pad_id = pad_id
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len + 1, d_model)
        self.cls_token = nn.Parameter(0.02 * torch.randn(1, 1, d_model))
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([
            TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout, norm_first=norm_first)
            for _ in range(num_layers)
        ])
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        padding = (token_ids == self.pad_id) if key_padding_mask is None else key_padding_mask
        x = self.token_embedding(token_ids)
        if self.pooling is Pooling.CLS:
            B = x.shape[0]
            x = torch.cat([self.cls_token.expand(B, 1, -1), x], dim=1)
            padding = torch.cat([torch.zeros(B, 1, dtype=torch.bool, device=padding.device), padding], dim=1)
        x = x + self.position_embedding(torch.arange(x.shape[1], device=x.device))
        x = self.dropout(x)
        for block in self.blocks:
            x = block(x, key_padding_mask=padding)
        x = self.final_norm(x)
        if self.pooling is Pooling.CLS:
            pooled = x[:, 0]
        else:
            pooled = masked_mean_pool(x, padding)
        return self.head(pooled)
