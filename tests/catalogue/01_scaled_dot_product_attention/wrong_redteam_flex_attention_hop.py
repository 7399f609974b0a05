"""attention through flex_attention's higher-order op (torch.nn.attention.flex_attention.flex_attention_hop): public name, not guarded."""
# expect: Implement attention yourself
# %% answer sdpa
from torch.nn.attention.flex_attention import flex_attention_hop, create_block_mask


def scaled_dot_product_attention(q, k, v, mask=None):
    L, S, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q4 = q.expand(*lead, L, d).reshape(-1, 1, L, d)
    k4 = k.expand(*lead, S, d).reshape(-1, 1, S, d)
    v4 = v.expand(*lead, S, v.shape[-1]).reshape(-1, 1, S, v.shape[-1])
    if mask is None:
        mb = torch.ones(q4.shape[0], 1, L, S, dtype=torch.bool, device=q.device)
    else:
        mb = mask.to(torch.bool).expand(*lead, L, S).reshape(-1, 1, L, S)

    def keep(b, h, i, j):
        return mb[b, 0, i, j]

    blocks = create_block_mask(keep, q4.shape[0], None, L, S, device=q.device).as_tuple()
    eye = torch.eye(S, dtype=q.dtype, device=q.device).expand(q4.shape[0], 1, S, S)
    scale = 1 / math.sqrt(d)

    def same(s, b, h, i, j):
        return s

    out = flex_attention_hop(q4, k4, v4, same, blocks, scale, {})[0]
    weights = flex_attention_hop(q4, k4, eye, same, blocks, scale, {})[0]
    return out.reshape(*lead, L, v.shape[-1]), weights.reshape(*lead, L, S)
