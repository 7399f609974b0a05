"""FeedForward picks its activation module with a match statement (nn.ReLU / nn.GELU(approximate="none"))."""
# %% answer feedforward
class FeedForward(nn.Module):
    """Position-wise feed-forward network: linear2(dropout(act(linear1(x))))."""

    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        match activation:
            case "relu":
                self.act = nn.ReLU()
            case "gelu":
                self.act = nn.GELU(approximate="none")  # the exact GELU
            case _:
                raise ValueError(f"unknown activation {activation!r}: expected 'relu' or 'gelu'")
        self.linear1 = nn.Linear(d_model, d_ff)
        self.dropout = nn.Dropout(p=dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        hidden = self.act(self.linear1(x))  # (..., d_ff)
        return self.linear2(self.dropout(hidden))  # (..., d_model)
