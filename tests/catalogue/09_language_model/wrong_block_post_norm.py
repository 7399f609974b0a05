"""The block normalises after the residual (post-norm) instead of before the sublayer."""
# expect: post-norm blocks
# %% answer decoder_block
class DecoderBlock(nn.Module):
    """Pre-norm decoder block: x + attn(norm1(x)), then x + ffn(norm2(x))."""

    def __init__(self, embed_dim, num_heads, d_ff):
        super().__init__()
        self.norm1 = RMSNorm(embed_dim)
        self.attn = CausalSelfAttention(embed_dim, num_heads)
        self.norm2 = RMSNorm(embed_dim)
        self.ffn = SwiGLUFeedForward(embed_dim, d_ff)

    def forward(self, x, cache=None):
        x = self.norm1(x + self.attn(x, cache))  # (B, T, E)
        return self.norm2(x + self.ffn(x))
