"""split_heads/merge_heads with explicit named sizes, torch.movedim and a shape assert; reshape to merge."""
# %% answer split_heads
def split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, E // H)."""
    batch, seq_len, embed_dim = x.shape
    assert embed_dim % num_heads == 0, f"{embed_dim} is not divisible by {num_heads}"
    head_dim = embed_dim // num_heads
    x = x.reshape(batch, seq_len, num_heads, head_dim)  # b l (h d) -> b l h d
    return torch.movedim(x, 2, 1)  # b l h d -> b h l d
# %% answer merge_heads
def merge_heads(x):
    """(B, H, L, d_k) -> (B, L, H * d_k), the inverse of split_heads."""
    batch, num_heads, seq_len, head_dim = x.shape
    x = torch.movedim(x, 1, 2)  # b h l d -> b l h d
    return x.reshape(batch, seq_len, num_heads * head_dim)  # b l h d -> b l (h d)
