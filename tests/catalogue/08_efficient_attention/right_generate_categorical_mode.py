"""Greedy decoding written as the mode of torch.distributions.Categorical(probs=...) over float64 probabilities."""
# %% answer generate
@torch.no_grad()
def generate(model, prompt, num_new_tokens, use_cache=True):
    """Greedy decoding: prompt (B, P) -> (B, P + num_new_tokens), with a KV cache or by recomputing."""
    caches = model.new_cache() if use_cache else None
    out = prompt
    logits = model(prompt, caches)  # prefill
    for i in range(num_new_tokens):
        # greedy = the most likely token = the mode of the next-token distribution;
        # float64 probabilities, so that two close logits never round to the same probability
        probs = logits[:, -1].double().softmax(dim=-1)
        next_token = torch.distributions.Categorical(probs=probs).mode.unsqueeze(-1)  # (B, 1)
        out = torch.cat([out, next_token], dim=1)
        if i + 1 < num_new_tokens:
            logits = model(next_token, caches) if use_cache else model(out)
    return out
