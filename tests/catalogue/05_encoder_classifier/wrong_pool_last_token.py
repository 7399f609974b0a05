"""The classifier pools the last position (padding for shorter sequences) instead of the [CLS] position."""
# expect: the last position
# %% answer classifier
class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling not in ("cls", "mean"):
            raise ValueError(f"unknown pooling {pooling!r}")
        self.pooling, self.pad_id = pooling, pad_id
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len + 1, d_model)
        self.cls_token = nn.Parameter(torch.randn(1, 1, d_model) * 0.02)
        self.blocks = nn.ModuleList(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first=norm_first)
                                    for _ in range(num_layers))
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        if key_padding_mask is None:
            key_padding_mask = token_ids == self.pad_id
        B = token_ids.shape[0]
        x = self.token_embedding(token_ids)
        if self.pooling == "cls":
            x = torch.cat([self.cls_token.expand(B, -1, -1), x], dim=1)
            key_padding_mask = torch.cat([key_padding_mask.new_zeros(B, 1), key_padding_mask], dim=1)
        x = x + self.position_embedding(torch.arange(x.shape[1], device=x.device))
        for block in self.blocks:
            x = block(x, key_padding_mask=key_padding_mask)
        pooled = x[:, -1] if self.pooling == "cls" else masked_mean_pool(x, key_padding_mask)
        return self.head(pooled)
