"""Beam search ranks finished hypotheses by raw log-probability (no length penalty)."""
# expect: not length-normalised
# %% answer beam_search
@torch.no_grad()
def beam_search(model, src, beam_size, max_len, bos_id, eos_id, length_penalty=1.0):
    """Best hypothesis (1-D tokens without <bos>) by log p / len**length_penalty."""
    memory = model.encode(src)  # (1, S, E)
    src_pad = src == model.pad_id  # (1, S)
    beams = torch.full((1, 1), bos_id, dtype=torch.long, device=src.device)  # (k, t) live prefixes
    scores = torch.zeros(1, device=src.device)  # (k,) cumulative log-probabilities
    finished = []  # (length-penalised score, tokens)
    for _ in range(max_len):
        k = beams.shape[0]
        logits = model.decode(beams, memory.expand(k, -1, -1), src_pad.expand(k, -1))[:, -1]  # (k, V)
        cand = scores[:, None] + logits.log_softmax(-1)  # (k, V)
        top, flat = cand.reshape(-1).topk(min(beam_size, cand.numel()))  # best extensions overall
        V = cand.shape[1]
        rows, toks = flat // V, flat % V
        alive = []
        for score, row, tok in zip(top.tolist(), rows.tolist(), toks.tolist()):
            seq = torch.cat([beams[row, 1:], beams.new_tensor([tok])])  # tokens without <bos>
            if tok == eos_id:
                finished.append((score, seq))
            else:
                alive.append((score, row, tok))
        if not alive:
            break
        beams = torch.cat([beams[[r for _, r, _ in alive]], beams.new_tensor([[t] for _, _, t in alive])], dim=1)
        scores = scores.new_tensor([s for s, _, _ in alive])
    if not finished:  # nothing ended: fall back to the live hypotheses
        finished = [(s, beams[i, 1:])
                    for i, s in enumerate(scores.tolist())]
    return max(finished, key=lambda item: item[0])[1]
