"""run_decoder feeds targets[:, t] at step t: the decoder sees the token it predicts."""
# expect: the token it must predict
# %% answer run_decoder
def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,
                teacher_forcing=1.0, generator=None):
    """Unroll decoder.step (wrong: step t is fed targets[:, t])."""
    B = enc_outputs.shape[0]
    prev = torch.full((B,), bos_id, dtype=torch.long)
    hidden, all_logits, all_weights = enc_final, [], []
    for t in range(steps):
        if targets is not None and teacher_forcing > 0:
            prev = targets[:, t]
        logits, hidden, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_mask)
        all_logits.append(logits)
        all_weights.append(weights)
        prev = logits.argmax(-1)
    weights = None if all_weights[0] is None else torch.stack(all_weights, 1)
    return torch.stack(all_logits, 1), weights
