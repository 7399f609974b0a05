"""Greedy decoding keeps generating after <eos> instead of padding."""
# expect: stop each row at its <eos>
# %% answer greedy_decode
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id=0):
    """Most likely token at every step (wrong: never stops at <eos>)."""
    memory = model.encode(src)
    ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    for _ in range(max_len):
        next_tok = model.decode(ys, memory, src == model.pad_id)[:, -1].argmax(-1)
        ys = torch.cat([ys, next_tok[:, None]], dim=1)
    return ys[:, 1:]
