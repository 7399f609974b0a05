"""The decoder step queries the attention with the new state instead of the previous one."""
# %% answer decoder_step
class Decoder(nn.Module):
    """A GRU decoder that reads the source through attention (or through enc_final only)."""

    def __init__(self, vocab_size, emb_size, hidden_size, attention=None):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)
        if attention == "additive":
            self.attention = BahdanauAttention(hidden_size, hidden_size, hidden_size)
        elif attention == "multiplicative":
            self.attention = LuongAttention(hidden_size, hidden_size)
        else:
            self.attention = None
        self.cell = nn.GRUCell(emb_size + hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size + hidden_size + emb_size, vocab_size)

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        """One step (wrong: the cell gets enc_final and attention is queried afterwards)."""
        embedded = self.embedding(prev_tokens)
        hidden = self.cell(torch.cat([embedded, enc_final], dim=-1), hidden)
        if self.attention is None:
            context, weights = enc_final, None
        else:
            context, weights = self.attention(hidden, enc_outputs, src_mask)
        return self.out(torch.cat([hidden, context, embedded], dim=-1)), hidden, weights
