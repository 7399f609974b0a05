"""generate fills a preallocated (B, P + n) tensor position by position and feeds slices of it back in."""
# %% answer generate
@torch.no_grad()
def generate(model, prompt, num_new_tokens, use_cache=True):
    """Greedy decoding: prompt (B, P) -> (B, P + num_new_tokens), with a KV cache or by recomputing."""
    B, P = prompt.shape
    total = P + num_new_tokens
    tokens = prompt.new_empty((B, total))
    tokens[:, :P] = prompt
    caches = model.new_cache() if use_cache else None
    logits = model(prompt, caches)
    for t in range(P, total):
        tokens[:, t] = logits[:, -1].argmax(dim=-1)
        if t + 1 == total:
            break
        if use_cache:
            logits = model(tokens[:, t:t + 1], caches)  # only the new token
        else:
            logits = model(tokens[:, :t + 1])  # the whole sequence again
    return tokens
