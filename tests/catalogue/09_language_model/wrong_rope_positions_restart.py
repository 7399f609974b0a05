"""With a KV cache, RoPE positions restart at 0 on every call (the offset len(cache) is forgotten)."""
# expect: RoPE positions restart at 0
# %% patch attention
# -         positions = torch.arange(past, past + T, device=x.device)
# +         positions = torch.arange(T, device=x.device)  # forgot the offset

# -         allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= positions[:, None]  # (T, past + T)
# +         allowed = torch.arange(k.shape[-2], device=x.device)[None, :] <= past + positions[:, None]  # (T, past + T)
