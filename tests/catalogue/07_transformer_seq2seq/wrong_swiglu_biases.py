"""SwiGLU whose three nn.Linear layers keep their default biases, where none are asked for."""
# expect: exactly w1
# %% answer swiglu_ffn
class SwiGLUFeedForward(nn.Module):
    """Gated feed-forward layer (wrong: with biases)."""

    def __init__(self, d_model, d_ff=None):
        super().__init__()
        hidden = swiglu_hidden_size(d_model) if d_ff is None else d_ff
        self.w1 = nn.Linear(d_model, hidden)
        self.w3 = nn.Linear(d_model, hidden)
        self.w2 = nn.Linear(hidden, d_model)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))
