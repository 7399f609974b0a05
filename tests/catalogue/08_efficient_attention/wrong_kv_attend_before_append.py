"""KV cache: the new token attends to the cache before its own key/value is appended (it cannot see itself)."""
# expect: before appending to the cache
# %% patch cached_attention
# =         v = self.v_proj(x).view(B, T, H, d).transpose(1, 2)  # (B, H, T, d)
# +         if cache is None or len(cache) == 0:
# +             k_all, v_all = k, v
# +         else:
# +             k_all, v_all = cache.keys, cache.values  # the old positions only
# +         allowed = torch.arange(k_all.shape[-2])[None, :] <= torch.arange(past, past + T)[:, None]
# +         out = naive_attention(q, k_all, v_all, allowed)

# -             k, v = cache.append(k, v)  # (B, H, past + T, d): the new token must see itself
# -         # new token t sits at position past + t and may attend to keys 0 .. past + t
# -         positions = torch.arange(past, past + T, device=x.device)[:, None]  # (T, 1)
# -         allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= positions  # (T, past + T)
# -         out = naive_attention(q, k, v, allowed)  # (B, H, T, d)
# +             cache.append(k, v)  # appended after computing
