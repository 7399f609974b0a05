"""TransformerClassifier pads the mask for [CLS] with F.pad(value=False) and looks positions up with expanded position ids."""
# %% answer classifier
class TransformerClassifier(nn.Module):
    """Token + position embeddings, encoder blocks, CLS or masked-mean pooling, linear head."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling != "cls" and pooling != "mean":
            raise ValueError("pooling should be 'cls' or 'mean', not " + repr(pooling))
        self.pooling = pooling
        self.pad_id = pad_id
        self.max_len = max_len
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len + 1, d_model)
        self.cls = nn.Parameter(torch.empty(1, 1, d_model))
        nn.init.normal_(self.cls, std=0.02)
        self.drop = nn.Dropout(dropout)
        layers = []
        for _ in range(num_layers):
            layers.append(TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=dropout, norm_first=norm_first))
        self.layers = nn.ModuleList(layers)
        self.final_norm = nn.LayerNorm(d_model) if norm_first else None
        self.out = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        padding = token_ids.eq(self.pad_id) if key_padding_mask is None else key_padding_mask.bool()
        if token_ids.size(1) > self.max_len:
            raise ValueError(f"sequence length {token_ids.size(1)} exceeds max_len={self.max_len}")
        h = self.tok(token_ids)  # (B, L, E)
        if self.pooling == "cls":
            h = torch.cat((self.cls.expand(h.size(0), 1, -1), h), dim=1)
            padding = F.pad(padding, (1, 0), value=False)  # [CLS] is never padding
        position_ids = torch.arange(h.size(1), device=h.device).unsqueeze(0).expand(h.size(0), -1)
        h = self.drop(h + self.pos(position_ids))
        for layer in self.layers:
            h = layer(h, key_padding_mask=padding)
        if self.final_norm is not None:
            h = self.final_norm(h)
        pooled = h[:, 0] if self.pooling == "cls" else masked_mean_pool(h, padding)
        return self.out(pooled)
