"""A fused QKV projection for self-attention (one matmul with the three weights stacked), copy via load_state_dict."""
# %% answer mha
class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError(f"num_heads ({num_heads}) must divide embed_dim ({embed_dim})")
        self.num_heads, self.dropout = num_heads, dropout
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def _project(self, query, key, value):
        projs = (self.q_proj, self.k_proj, self.v_proj)
        if query is key and key is value:  # self-attention: one fused matmul
            weight = torch.cat([p.weight for p in projs])  # (3E, E)
            bias = torch.cat([p.bias for p in projs]) if self.q_proj.bias is not None else None
            return F.linear(query, weight, bias).chunk(3, dim=-1)
        return tuple(p(x) for p, x in zip(projs, (query, key, value)))

    def forward(self, query, key, value, key_padding_mask=None, attn_mask=None,
                need_weights=True, average_attn_weights=True):
        B, L, E = query.shape
        S, H = key.shape[1], self.num_heads
        q, k, v = (split_heads(t, H) for t in self._project(query, key, value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(E // H)
        bias = torch.zeros(B, H, L, S, dtype=scores.dtype)
        if attn_mask is not None:
            m = attn_mask.view(B, H, L, S) if attn_mask.dim() == 3 else attn_mask
            bias = bias.masked_fill(m, float("-inf")) if m.dtype == torch.bool else bias + m
        if key_padding_mask is not None:
            bias = bias.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        weights = F.dropout(torch.softmax(scores + bias, dim=-1), self.dropout, self.training)
        out = self.out_proj(merge_heads(weights @ v))
        return out, (None if not need_weights else weights.mean(1) if average_attn_weights else weights)
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    E = torch_mha.embed_dim
    state = {}
    for i, name in enumerate(("q_proj", "k_proj", "v_proj")):
        state[f"{name}.weight"] = torch_mha.in_proj_weight[i * E:(i + 1) * E]
        if torch_mha.in_proj_bias is not None:
            state[f"{name}.bias"] = torch_mha.in_proj_bias[i * E:(i + 1) * E]
    state["out_proj.weight"] = torch_mha.out_proj.weight
    if torch_mha.out_proj.bias is not None:
        state["out_proj.bias"] = torch_mha.out_proj.bias
    module.load_state_dict({k: v.detach().clone() for k, v in state.items()})
