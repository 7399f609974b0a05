"""run_decoder starts every step from enc_final instead of threading the state."""
# expect: each step gets the state returned by the previous one
# %% answer run_decoder
def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,
                teacher_forcing=1.0, generator=None):
    """Unroll decoder.step; next input = true token (prob. teacher_forcing) or own arg-max."""
    B = enc_outputs.shape[0]
    prev = torch.full((B,), bos_id, dtype=torch.long, device=enc_outputs.device)  # (B,)
    hidden, all_logits, all_weights = enc_final, [], []
    for t in range(steps):
        logits, _, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_mask)
        all_logits.append(logits)
        all_weights.append(weights)
        own = logits.argmax(dim=-1).detach()  # (B,) the model's own guess
        if targets is not None and teacher_forcing > 0:
            use_truth = torch.rand(B, generator=generator) < teacher_forcing  # one coin per sentence
            prev = torch.where(use_truth.to(own.device), targets[:, t], own)
        else:
            prev = own
    weights = None if all_weights[0] is None else torch.stack(all_weights, dim=1)  # (B, steps, S)
    return torch.stack(all_logits, dim=1), weights  # (B, steps, V)
