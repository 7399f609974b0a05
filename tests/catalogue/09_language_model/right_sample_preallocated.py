"""sample writes each draw into a preallocated (B, P + n) tensor and feeds slices of it back to the model."""
# %% answer sample
@torch.no_grad()
def sample(model, prompt, num_new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None, use_cache=True):
    """prompt (B, P) -> (B, P + num_new_tokens), one multinomial draw per step, with or without a KV cache."""
    B, P = prompt.shape
    total = P + num_new_tokens
    tokens = torch.empty((B, total), dtype=prompt.dtype, device=prompt.device)
    tokens[:, :P] = prompt
    caches = model.new_cache() if use_cache else None
    logits = model(prompt, caches)  # prefill
    for t in range(P, total):
        probs = sampling_probs(logits[:, -1], temperature=temperature, top_k=top_k, top_p=top_p)
        tokens[:, t:t + 1] = torch.multinomial(probs, num_samples=1, generator=generator)
        if t + 1 < total:
            logits = model(tokens[:, t:t + 1], caches) if use_cache else model(tokens[:, :t + 1])
    return tokens
