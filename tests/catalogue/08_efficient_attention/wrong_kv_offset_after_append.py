"""KV cache: the position offset is read after appending, so the causal mask inside a chunk lets tokens see the future."""
# expect: the offset was read after appending
# %% patch cached_attention
# -         past = 0 if cache is None else len(cache)  # position of x[:, 0], read BEFORE appending

# -         positions = torch.arange(past, past + T, device=x.device)[:, None]  # (T, 1)
# -         allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= positions  # (T, past + T)
# +         past = 0 if cache is None else len(cache)  # read after appending: already includes the new tokens
# +         allowed = torch.arange(k.shape[-2])[None, :] <= torch.arange(past, past + T)[:, None]
