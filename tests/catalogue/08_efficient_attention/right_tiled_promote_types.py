"""tiled_attention keeps its running max, sum and accumulator in torch.promote_types(q.dtype, v.dtype) and tiles the queries too."""
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    """Exact attention block by block with an online softmax, never building the (L, S) matrix."""
    L, S, d = q.shape[-2], k.shape[-2], q.shape[-1]
    acc_dtype = torch.promote_types(q.dtype, v.dtype)  # float32 stays float32, float64 stays float64
    scale = d ** -0.5
    out_blocks = []
    for q_start in range(0, L, block_size):
        q_end = min(q_start + block_size, L)
        qb = q[..., q_start:q_end, :].to(acc_dtype)
        rows = qb.shape[:-1]
        row_max = torch.full((*rows, 1), float("-inf"), dtype=acc_dtype, device=q.device)
        row_sum = torch.zeros((*rows, 1), dtype=acc_dtype, device=q.device)
        acc = torch.zeros((*rows, v.shape[-1]), dtype=acc_dtype, device=q.device)
        last_key = min(S, q_end) if causal else S  # causal: keys at or after q_end are nobody's past
        for k_start in range(0, last_key, block_size):
            k_end = min(k_start + block_size, S)
            scores = (qb @ k[..., k_start:k_end, :].to(acc_dtype).transpose(-2, -1)) * scale
            if causal:
                q_pos = torch.arange(q_start, q_end, device=q.device).unsqueeze(-1)
                k_pos = torch.arange(k_start, k_end, device=q.device)
                scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
            new_max = torch.maximum(row_max, scores.amax(dim=-1, keepdim=True))
            correction = torch.exp(row_max - new_max)  # 0 on the first block (row_max = -inf)
            p = torch.exp(scores - new_max)
            row_sum = row_sum * correction + p.sum(dim=-1, keepdim=True)
            acc = acc * correction + p @ v[..., k_start:k_end, :].to(acc_dtype)
            row_max = new_max
        out_blocks.append(acc / row_sum)
    return torch.cat(out_blocks, dim=-2).to(q.dtype)
