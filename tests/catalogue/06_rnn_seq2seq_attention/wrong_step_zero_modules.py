"""The step is not written: its modules output zeros and it returns zeros, calling only the attention."""
# expect: cell input [embedded; context]
# %% answer decoder_step
class Zeros(nn.Module):
    """A layer that outputs zeros of its width, whatever it is given."""

    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, x, *rest):
        return torch.zeros(x.shape[0], self.width)


class Decoder(nn.Module):
    """A GRU decoder that reads the source through attention (or through enc_final only)."""

    def __init__(self, vocab_size, emb_size, hidden_size, attention=None):
        super().__init__()
        self.embedding = Zeros(emb_size)
        if attention == "additive":
            self.attention = BahdanauAttention(hidden_size, hidden_size, hidden_size)
        elif attention == "multiplicative":
            self.attention = LuongAttention(hidden_size, hidden_size)
        else:
            self.attention = None
        self.cell = Zeros(hidden_size)
        self.out = Zeros(vocab_size)

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        weights = None if self.attention is None else self.attention(hidden, enc_outputs, src_mask)[1]
        zeros = self.embedding(prev_tokens)[:, :0]  # (B, 0)
        return self.out(zeros), self.cell(zeros), weights
