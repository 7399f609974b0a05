"""generate feeds the whole sequence again even with a cache, so the cache holds every position many times."""
# %% patch generate
# -             logits = model(next_token, caches) if use_cache else model(tokens)
# +             logits = model(tokens, caches)
