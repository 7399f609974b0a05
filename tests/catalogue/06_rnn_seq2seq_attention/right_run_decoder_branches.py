"""run_decoder with separate branches for pure teacher forcing / free running and preallocated outputs."""
# %% answer run_decoder
def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,
                teacher_forcing=1.0, generator=None):
    """Unroll decoder.step; next input = true token (prob. teacher_forcing) or own arg-max."""
    B = enc_outputs.shape[0]
    inp = enc_outputs.new_full((B,), bos_id, dtype=torch.long)
    state = enc_final
    logits_all, weights_all = [], []
    for t in range(steps):
        out, state, w = decoder.step(inp, state, enc_outputs, enc_final, src_mask)
        logits_all.append(out.unsqueeze(1))
        if w is not None:
            weights_all.append(w.unsqueeze(1))
        guess = out.detach().argmax(-1)
        if targets is None or teacher_forcing <= 0.0:
            inp = guess
        elif teacher_forcing >= 1.0:
            inp = targets[:, t]
        else:
            coin = torch.rand(B, generator=generator).to(guess.device) < teacher_forcing
            inp = torch.where(coin, targets[:, t], guess)
    return torch.cat(logits_all, 1), (torch.cat(weights_all, 1) if weights_all else None)
