"""view + permute(0, 2, 1, 3) for the heads, .contiguous().view to merge, and copy_weights through load_state_dict."""
# %% answer split_heads
def split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, E // H)."""
    batch, length, embed = x.size()
    head_dim = embed // num_heads
    return x.contiguous().view(batch, length, num_heads, head_dim).permute(0, 2, 1, 3)
# %% answer merge_heads
def merge_heads(x):
    """(B, H, L, d_k) -> (B, L, H * d_k), the inverse of split_heads."""
    batch, heads, length, head_dim = x.size()
    return x.permute(0, 2, 1, 3).contiguous().view(batch, length, heads * head_dim)
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    """Copy an nn.MultiheadAttention's weights into a MultiHeadAttention, in place."""
    w_q, w_k, w_v = torch_mha.in_proj_weight.detach().chunk(3)
    state = {"q_proj.weight": w_q, "k_proj.weight": w_k, "v_proj.weight": w_v,
             "out_proj.weight": torch_mha.out_proj.weight.detach()}
    if torch_mha.in_proj_bias is not None:
        b_q, b_k, b_v = torch_mha.in_proj_bias.detach().chunk(3)
        state.update({"q_proj.bias": b_q, "k_proj.bias": b_k, "v_proj.bias": b_v,
                      "out_proj.bias": torch_mha.out_proj.bias.detach()})
    module.load_state_dict(state)  # copies the values into the existing parameters
    return module
