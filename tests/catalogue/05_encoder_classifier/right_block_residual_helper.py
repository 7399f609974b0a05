"""Encoder block with one residual(x, sublayer, norm) method for both placements, and typing.Callable hints."""
# %% answer encoder_block
from typing import Callable


class TransformerEncoderBlock(nn.Module):
    """Self-attention and feed-forward sublayers with residuals and LayerNorm (post- or pre-norm)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        activations: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"relu": F.relu, "gelu": F.gelu}
        if activation not in activations:
            raise ValueError(f"unsupported activation: {activation}")
        self.activation = activations[activation]
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def residual(self, x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor], norm: nn.Module):
        """Pre-norm: x + sublayer(norm(x)); post-norm: norm(x + sublayer(x))."""
        if self.norm_first:
            return x + sublayer(norm(x))
        return norm(x + sublayer(x))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        def attend(h):
            h, _ = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                                  need_weights=False)
            return self.dropout1(h)

        def feed_forward(h):
            return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))

        x = self.residual(x, attend, self.norm1)
        return self.residual(x, feed_forward, self.norm2)
