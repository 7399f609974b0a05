"""Softmax over the queries (dim=-2) instead of the keys."""
# expect: softmax over the queries
# %% patch mha
# -             raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
# -         self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
# -         self.head_dim = embed_dim // num_heads  # d_k
# +             raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
# +         self.num_heads, self.head_dim, self.dropout = num_heads, embed_dim // num_heads, dropout

# -         if attn_mask is not None and attn_mask.dim() == 3:
# -             attn_mask = attn_mask.view(B, H, L, S)  # (B·H, L, S) is batch-major; (L, S) broadcasts as it is
# +         if attn_mask is not None:
# +             if attn_mask.dim() == 3:
# +                 attn_mask = attn_mask.view(B, H, L, S)
# +             if attn_mask.dtype == torch.bool:
# +                 scores = scores.masked_fill(attn_mask, float("-inf"))
# +             else:
# +                 scores = scores + attn_mask

# -             key_padding_mask = key_padding_mask[:, None, None, :]  # (B, 1, 1, S): padding blocks keys
# -         for mask in (attn_mask, key_padding_mask):
# -             if mask is not None:  # module convention: bool True = blocked (-inf); a float mask is added
# -                 scores = scores.masked_fill(mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
# -         weights = torch.softmax(scores, dim=-1)  # over the keys
# +             scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
# +         weights = torch.softmax(scores, dim=-2)
