"""GQA key/value heads expanded with .repeat (query head h reads h % G) instead of repeat_interleave."""
# expect: tiled with .repeat
# %% patch gqa
# -         self.num_heads = num_heads
# -         self.num_kv_heads = num_kv_heads
# +         self.num_heads, self.num_kv_heads = num_heads, num_kv_heads

# -         k = self.k_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
# -         v = self.v_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
# -         # query head h reads key/value head h // (H // G): consecutive heads share one
# -         k = k.repeat_interleave(H // G, dim=1)  # (B, H, L, d)
# -         v = v.repeat_interleave(H // G, dim=1)  # (B, H, L, d)
# +         k = self.k_proj(x).view(B, L, G, d).transpose(1, 2).repeat(1, H // G, 1, 1)
# +         v = self.v_proj(x).view(B, L, G, d).transpose(1, 2).repeat(1, H // G, 1, 1)
