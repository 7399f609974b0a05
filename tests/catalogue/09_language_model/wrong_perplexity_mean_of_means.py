"""Perplexity from the mean of the batches' mean losses: every batch weighs the same."""
# expect: the mean of the batches' means
# %% answer perplexity
@torch.no_grad()
def perplexity(model, batches, pad_id):
    """exp(mean next-token loss over every counted target of every batch)."""
    total, count = 0.0, 0
    for tokens in batches:
        logits = model(tokens)  # (B, T, V)
        targets = tokens[:, 1:]  # (B, T - 1)
        losses = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                 ignore_index=pad_id)
        total += float(losses)
        count += 1
    return math.exp(total / count)
