"""sample takes the arg-max instead of drawing from the distribution."""
# expect: greedy arg-max instead of a draw
# %% answer sample
@torch.no_grad()
def sample(model, prompt, num_new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None, use_cache=True):
    """prompt (B, P) -> (B, P + num_new_tokens), one multinomial draw per step, with or without a KV cache."""
    caches = model.new_cache() if use_cache else None
    tokens = prompt
    logits = model(prompt, caches)  # prefill: (B, P, V)
    for step in range(num_new_tokens):
        probs = sampling_probs(logits[:, -1], temperature, top_k, top_p)  # (B, V)
        next_token = probs.argmax(-1, keepdim=True)  # (B, 1)
        tokens = torch.cat([tokens, next_token], dim=1)
        if step + 1 < num_new_tokens:
            logits = model(next_token, caches) if use_cache else model(tokens)
    return tokens
