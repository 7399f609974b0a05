"""[CLS] as an extra vocabulary id, positions as an nn.Parameter table, masked_fill mean pool, torch argsort/randperm batching."""
# %% answer classifier
class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling not in {"cls", "mean"}:
            raise ValueError(f"pooling={pooling!r}: use 'cls' or 'mean'")
        self.pooling, self.pad_id, self.cls_id = pooling, pad_id, vocab_size  # one extra id for [CLS]
        self.embed = nn.Embedding(vocab_size + 1, d_model)
        self.positions = nn.Parameter(torch.randn(max_len + 1, d_model) * 0.02)
        self.drop = nn.Dropout(dropout)
        self.layers = nn.ModuleList([TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, "relu", norm_first)
                                     for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model) if norm_first else None
        self.classifier = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        pad = token_ids.eq(self.pad_id) if key_padding_mask is None else key_padding_mask
        if self.pooling == "cls":
            cls = torch.full_like(token_ids[:, :1], self.cls_id)
            token_ids = torch.cat([cls, token_ids], 1)
            pad = torch.cat([torch.zeros_like(pad[:, :1]), pad], 1)
        h = self.drop(self.embed(token_ids) + self.positions[: token_ids.size(1)])
        for layer in self.layers:
            h = layer(h, key_padding_mask=pad)
        if self.norm is not None:
            h = self.norm(h)
        return self.classifier(h[:, 0] if self.pooling == "cls" else masked_mean_pool(h, pad))
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    summed = x.masked_fill(key_padding_mask.unsqueeze(-1), 0.0).sum(1)
    n = (~key_padding_mask).sum(1, keepdim=True)
    return torch.where(n > 0, summed / n.clamp(min=1), torch.zeros_like(summed))
# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    order = torch.argsort(torch.as_tensor(lengths), stable=True)
    batches = [chunk.tolist() for chunk in order.split(batch_size)]
    if shuffle:
        perm = torch.randperm(len(batches), generator=torch.Generator().manual_seed(seed))
        batches = [batches[i] for i in perm.tolist()]
    return batches
