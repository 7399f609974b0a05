"""GQA splits the heads with reshape(B, H, L, d), without the transpose, and merges them back the same way: each
"head" then holds a slice of positions, not a slice of features. Head sharing itself (repeat_interleave) is right."""
# expect: no transpose
# expect in test_gqa_equals_mha: no transpose
# expect in test_gqa_sharing: no transpose
# %% patch gqa
# -         q = self.q_proj(x).view(B, L, H, d).transpose(1, 2)  # (B, H, L, d)
# -         k = self.k_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
# -         v = self.v_proj(x).view(B, L, G, d).transpose(1, 2)  # (B, G, L, d)
# +         q = self.q_proj(x).reshape(B, H, L, d)
# +         k = self.k_proj(x).reshape(B, G, L, d)
# +         v = self.v_proj(x).reshape(B, G, L, d)

# -         return self.out_proj(out.transpose(1, 2).reshape(B, L, E))  # (B, L, E)
# +         return self.out_proj(out.reshape(B, L, E))
