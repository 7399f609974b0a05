"""Beam search that refills the beam to beam_size live hypotheses and stops when beam_size have finished."""
# %% answer beam_search
@torch.no_grad()
def beam_search(model, src, beam_size, max_len, bos_id, eos_id, length_penalty=1.0):
    """Best hypothesis (1-D tokens without <bos>) by log p / len**length_penalty."""
    memory, src_pad = model.encode(src), src == model.pad_id
    live = [(0.0, [bos_id])]
    done = []
    for _ in range(max_len):
        prefixes = torch.tensor([seq for _, seq in live], device=src.device)  # (k, t)
        logp = model.decode(prefixes, memory.repeat(len(live), 1, 1), src_pad.repeat(len(live), 1))[:, -1]
        logp = torch.log_softmax(logp, dim=-1)
        cands = []
        for (score, seq), row in zip(live, logp):
            vals, idx = row.topk(min(2 * beam_size, row.numel()))
            cands += [(score + v, seq + [i]) for v, i in zip(vals.tolist(), idx.tolist())]
        cands.sort(key=lambda c: -c[0])
        live = []
        for rank, (score, seq) in enumerate(cands):
            if seq[-1] == eos_id:
                if rank < beam_size:  # a finished candidate counts if it ranks among the best beam_size
                    done.append((score / (len(seq) - 1) ** length_penalty, seq[1:]))
            else:
                live.append((score, seq))
            if len(live) == beam_size:
                break
        if len(done) >= beam_size or not live:
            break
    if not done:
        done = [(score / (len(seq) - 1) ** length_penalty, seq[1:]) for score, seq in live]
    return torch.tensor(max(done, key=lambda d: d[0])[1], dtype=torch.long, device=src.device)
