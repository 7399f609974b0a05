"""SwiGLU with an nn.SiLU module (no parameters) and the layers created in another order."""
# %% answer swiglu_ffn
class SwiGLUFeedForward(nn.Module):
    """Gated feed-forward layer: w2(silu(w1 x) * w3 x), no biases."""

    def __init__(self, d_model, d_ff=None):
        super().__init__()
        d_ff = swiglu_hidden_size(d_model) if d_ff is None else d_ff
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))
