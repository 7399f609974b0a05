"""An answer written from the student notebook alone, without the reference: every stub."""

# %% answer split_heads
def split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, E // H)."""
    batch, length, width = x.shape
    head_dim = width // num_heads
    # (B, L, H, d_k): each token's features cut into H slices, then the head axis moved in front of L
    return x.reshape(batch, length, num_heads, head_dim).transpose(1, 2)


# %% answer merge_heads
def merge_heads(x):
    """(B, H, L, d_k) -> (B, L, H * d_k), the inverse of split_heads."""
    batch, heads, length, head_dim = x.shape
    # reshape copies when the transposed tensor is not contiguous
    return x.transpose(1, 2).reshape(batch, length, heads * head_dim)


# %% answer mha
class MultiHeadAttention(nn.Module):
    """Multi-head attention, a drop-in for nn.MultiheadAttention(batch_first=True)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"embed_dim={embed_dim} is not divisible by num_heads={num_heads}")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        """query (B, L, E), key/value (B, S, E) -> (output (B, L, E), weights or None)."""
        B, L, _ = query.shape
        S = key.shape[1]
        H = self.num_heads
        q = split_heads(self.q_proj(query), H)  # (B, H, L, d_k)
        k = split_heads(self.k_proj(key), H)    # (B, H, S, d_k)
        v = split_heads(self.v_proj(value), H)  # (B, H, S, d_k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # (B, H, L, S)

        if attn_mask is not None:
            mask = attn_mask
            if mask.dim() == 3:  # (B·H, L, S), batch-major rows
                mask = mask.reshape(B, H, L, S)
            if mask.dtype == torch.bool:
                scores = scores.masked_fill(mask, float("-inf"))
            else:
                scores = scores + mask.to(scores.dtype)
        if key_padding_mask is not None:
            pad = key_padding_mask[:, None, None, :]  # (B, 1, 1, S)
            if pad.dtype == torch.bool:
                scores = scores.masked_fill(pad, float("-inf"))
            else:
                scores = scores + pad.to(scores.dtype)

        weights = torch.softmax(scores, dim=-1)
        weights = F.dropout(weights, p=self.dropout, training=self.training)
        context = merge_heads(weights @ v)  # (B, L, E)
        output = self.out_proj(context)

        if not need_weights:
            return output, None
        return output, (weights.mean(dim=1) if average_attn_weights else weights)


# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    """Copy an nn.MultiheadAttention's weights into a MultiHeadAttention, in place."""
    E = torch_mha.embed_dim
    with torch.no_grad():
        if torch_mha.in_proj_weight is not None:
            w_q, w_k, w_v = torch_mha.in_proj_weight[:E], torch_mha.in_proj_weight[E:2 * E], torch_mha.in_proj_weight[2 * E:]
        else:  # separate projections (kdim/vdim differ): not the case here, but handle it
            w_q, w_k, w_v = torch_mha.q_proj_weight, torch_mha.k_proj_weight, torch_mha.v_proj_weight
        module.q_proj.weight.copy_(w_q)
        module.k_proj.weight.copy_(w_k)
        module.v_proj.weight.copy_(w_v)
        if torch_mha.in_proj_bias is not None:
            b = torch_mha.in_proj_bias
            module.q_proj.bias.copy_(b[:E])
            module.k_proj.bias.copy_(b[E:2 * E])
            module.v_proj.bias.copy_(b[2 * E:])
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
