"""Greedy decoding returns the <bos> column as well."""
# expect: do not return <bos>
# %% answer greedy_decode
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id=0):
    """Most likely token at every step; (B, T) tokens without <bos>, padded after <eos>."""
    src_pad = src == model.pad_id  # (B, S)
    memory = model.encode(src)  # (B, S, E), once
    B = src.shape[0]
    ys = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1): <bos>
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        next_tok = model.decode(ys, memory, src_pad)[:, -1].argmax(-1)  # (B,)
        next_tok = next_tok.masked_fill(done, pad_id)  # finished rows only get padding
        ys = torch.cat([ys, next_tok[:, None]], dim=1)  # (B, t + 1)
        done |= next_tok == eos_id
        if done.all():
            break
    return ys
