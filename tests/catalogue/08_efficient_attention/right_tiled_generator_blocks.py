"""Query and key tiles both come from a block_ranges() helper annotated typing.Generator[tuple[int, int], None, None]."""
# %% answer tiled_attention
import typing


def block_ranges(n: int, block_size: int) -> typing.Generator[tuple[int, int], None, None]:
    """(start, end) of consecutive blocks of n positions; the last block may be shorter."""
    start = 0
    while start < n:
        yield start, min(start + block_size, n)
        start += block_size


def tiled_attention(q, k, v, block_size, causal=False):
    """Exact attention block by block with an online softmax, never building the (L, S) matrix."""
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    outputs = []
    for q0, q1 in block_ranges(L, block_size):
        qb = q[..., q0:q1, :]
        m = torch.full((*qb.shape[:-1], 1), -math.inf, dtype=q.dtype, device=q.device)  # running max
        l = torch.zeros_like(m)  # running sum of exp(s - m)
        acc = torch.zeros((*qb.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)  # Σ exp(s - m) v
        query_pos = torch.arange(q0, q1, device=q.device)[:, None]  # absolute positions (bq, 1)
        for k0, k1 in block_ranges(S, block_size):
            if causal and k0 >= q1:
                break  # this key block and all later ones lie in the future of every query of the tile
            s = qb @ k[..., k0:k1, :].transpose(-2, -1) * scale  # (..., bq, bk)
            if causal:
                s = s.masked_fill(torch.arange(k0, k1, device=q.device) > query_pos, -math.inf)
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            rescale = torch.exp(m - m_new)
            l = l * rescale + p.sum(dim=-1, keepdim=True)
            acc = acc * rescale + p @ v[..., k0:k1, :]
            m = m_new
        outputs.append(acc / l)
    return torch.cat(outputs, dim=-2)
