"""SwiGLU with ReLU instead of SiLU (ReGLU)."""
# expect: ReLU instead of SiLU
# %% answer swiglu_ffn
class SwiGLUFeedForward(nn.Module):
    """Gated feed-forward layer (wrong: ReLU instead of SiLU (ReGLU))."""

    def __init__(self, d_model, d_ff=None):
        super().__init__()
        hidden = swiglu_hidden_size(d_model) if d_ff is None else d_ff
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.relu(self.w1(x)) * self.w3(x))
