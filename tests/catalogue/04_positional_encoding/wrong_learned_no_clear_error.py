"""Learned embedding without a length check: L > max_len fails with nn.Embedding's IndexError."""
# expect: instead of ValueError
# %% answer learned_pe
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        positions = torch.arange(x.shape[-2], device=x.device)
        return x + self.embedding(positions)
