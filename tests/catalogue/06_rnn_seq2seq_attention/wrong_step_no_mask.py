"""The decoder step does not pass src_mask to the attention."""
# expect: pass src_keep to the attention
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
            self.attention = None  # the classic encoder-decoder: context = enc_final at every step
        self.cell = nn.GRUCell(emb_size + hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size + hidden_size + emb_size, vocab_size)

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        """One step: (B,) previous tokens, (B, H) state -> (logits (B, V), state (B, H), weights (B, S) or None)."""
        embedded = self.embedding(prev_tokens)  # (B, E)
        if self.attention is None:
            context, weights = enc_final, None  # the bottleneck: the same vector at every step
        else:
            context, weights = self.attention(hidden, enc_outputs)  # query: s_{t-1}
        hidden = self.cell(torch.cat([embedded, context], dim=-1), hidden)  # (B, H)
        logits = self.out(torch.cat([hidden, context, embedded], dim=-1))  # (B, V)
        return logits, hidden, weights
