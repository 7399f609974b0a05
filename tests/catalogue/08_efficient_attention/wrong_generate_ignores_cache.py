"""generate ignores use_cache: every step feeds the whole sequence again, so the cache is never used."""
# expect: use_cache ignored
# %% patch generate
# -     caches = model.new_cache() if use_cache else None
# +     caches = None  # recomputing is simpler, and it gives the same tokens

# -             logits = model(next_token, caches) if use_cache else model(tokens)
# +             logits = model(tokens)
