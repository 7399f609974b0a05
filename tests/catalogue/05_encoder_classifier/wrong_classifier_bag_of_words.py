"""A bag of words: each token's embedding (plus its position) goes through its own small MLP, then a masked mean and
the head. No encoder block: a token's contribution never depends on the other tokens."""
# expect: bag of words
# %% answer classifier
class TransformerClassifier(nn.Module):
    """Per-token features averaged over the real tokens, then a linear head (the encoder left out)."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        if pooling not in ("cls", "mean"):
            raise ValueError(f"pooling must be 'cls' or 'mean', got pooling={pooling!r}")
        self.pad_id, self.max_len = pad_id, max_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len + 1, d_model)
        self.token_mlp = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, token_ids, key_padding_mask=None):
        if key_padding_mask is None:
            key_padding_mask = token_ids == self.pad_id
        if token_ids.shape[1] > self.max_len:
            raise ValueError(f"sequence length {token_ids.shape[1]} exceeds max_len={self.max_len}")
        positions = torch.arange(token_ids.shape[1], device=token_ids.device)
        x = self.token_mlp(self.token_embedding(token_ids) + self.position_embedding(positions))  # (B, L, E)
        return self.head(masked_mean_pool(x, key_padding_mask))
