"""lm_loss via F.nll_loss on log_softmax with the class axis moved to dim 1; perplexity from per-token losses and a boolean mask."""
# %% answer lm_loss
def lm_loss(logits, tokens, pad_id):
    """Mean next-token cross-entropy: logits[:, t] predicts tokens[:, t + 1]; padding targets ignored."""
    log_probs = F.log_softmax(logits[:, :-1], dim=-1)  # (B, T - 1, V)
    targets = tokens[:, 1:]  # (B, T - 1)
    return F.nll_loss(log_probs.transpose(1, 2), targets, ignore_index=pad_id)  # (B, V, T - 1) input
# %% answer perplexity
@torch.no_grad()
def perplexity(model, batches, pad_id):
    """exp(mean next-token loss over every counted target of every batch)."""
    nll_sum, n_targets = 0.0, 0
    for tokens in batches:
        logits = model(tokens)
        targets = tokens[:, 1:]
        counted = targets != pad_id  # (B, T - 1)
        token_nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), targets, reduction="none")  # (B, T - 1)
        nll_sum += token_nll[counted].sum().item()
        n_targets += int(counted.sum())
    return math.exp(nll_sum / n_targets)
