"""Greedy decoding that always runs max_len steps and pads with torch.where."""
# %% answer greedy_decode
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id=0):
    """Most likely token at every step; (B, max_len) tokens, padded after <eos>."""
    memory, src_pad = model.encode(src), src == model.pad_id
    ys = src.new_full((src.shape[0], 1), bos_id)
    finished = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        logits = model.decode(ys, memory, src_pad)  # (B, t, V)
        nxt = torch.where(finished, torch.full_like(finished, pad_id, dtype=torch.long), logits[:, -1].argmax(-1))
        finished = finished | (nxt == eos_id)
        ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
    return ys[:, 1:]
