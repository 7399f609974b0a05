"""SwiGLU with SiLU written out as z * sigmoid(z) and the layers' weights applied with F.linear."""
# %% answer swiglu_ffn
class SwiGLUFeedForward(nn.Module):
    """Gated feed-forward layer: w2(silu(w1 x) * w3 x), no biases."""

    def __init__(self, d_model, d_ff=None):
        super().__init__()
        hidden = d_ff if d_ff is not None else swiglu_hidden_size(d_model)
        self.w1, self.w3 = (nn.Linear(d_model, hidden, bias=False) for _ in range(2))
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        gate = F.linear(x, self.w1.weight)
        return F.linear(gate * torch.sigmoid(gate) * F.linear(x, self.w3.weight), self.w2.weight)
