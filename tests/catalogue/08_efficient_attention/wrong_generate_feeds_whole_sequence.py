"""generate feeds the whole sequence again even with a cache, so the cache holds every position many times."""
# %% answer generate
@torch.no_grad()
def generate(model, prompt, num_new_tokens, use_cache=True):
    caches = model.new_cache() if use_cache else None
    tokens = prompt
    logits = model(prompt, caches)
    for step in range(num_new_tokens):
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
        tokens = torch.cat([tokens, next_token], dim=1)
        if step + 1 < num_new_tokens:
            logits = model(tokens, caches)
    return tokens
