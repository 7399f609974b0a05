"""KV cache: the causal mask forgets the position offset (top-left tril(T, S), as is_causal=True does)."""
# expect: aligns that mask top-left
# %% patch cached_attention
# -         past = 0 if cache is None else len(cache)  # position of x[:, 0], read BEFORE appending

# -         positions = torch.arange(past, past + T, device=x.device)[:, None]  # (T, 1)
# -         allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= positions  # (T, past + T)
# -         out = naive_attention(q, k, v, allowed)  # (B, H, T, d)
# +         out = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # top-left: ignores the cached past
