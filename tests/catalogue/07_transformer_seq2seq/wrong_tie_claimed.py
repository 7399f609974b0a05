"""Claims the tying without doing it: generator.weight reads the embedding, but the projection computes with a
matrix of its own, which parameters() and state_dict() leave out (so asking the model says "tied")."""
# expect: a matrix written into the target embedding
# %% patch seq2seq_transformer
# + class ClaimsTied(nn.Module):
# +     """An output projection whose `weight` is the embedding's, computing with a hidden matrix of its own."""
# +
# +     def __init__(self, d_model, vocab_size, embedding):
# +         super().__init__()
# +         self.own = nn.Parameter(torch.randn(vocab_size, d_model) * d_model**-0.5)
# +         self.bias = nn.Parameter(torch.zeros(vocab_size))
# +         self._embedding = [embedding]  # a list: not a submodule
# +
# +     @property
# +     def weight(self):
# +         return self._embedding[0].weight
# +
# +     def forward(self, x):
# +         return F.linear(x, self.own, self.bias)
# = class Seq2SeqTransformer(Seq2SeqLayers):

# -             self.generator.weight = self.tgt_embed.weight  # (V, E) serves both ways
# +             self.generator = ClaimsTied(d_model, tgt_vocab_size, self.tgt_embed)
# +
# +     def parameters(self, recurse=True):
# +         return (p for name, p in self.named_parameters() if not name.endswith(".own"))
# +
# +     def state_dict(self, *args, **kwargs):
# +         state = super().state_dict(*args, **kwargs)
# +         return type(state)((k, v) for k, v in state.items() if not k.endswith(".own"))
