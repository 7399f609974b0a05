"""split_heads with unflatten, merge_heads with flatten, copy_weights with torch.split and zip(strict=True)."""
# %% answer split_heads
def split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, E // H)."""
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)
# %% answer merge_heads
def merge_heads(x):
    """(B, H, L, d_k) -> (B, L, H * d_k), the inverse of split_heads."""
    return x.transpose(1, 2).flatten(start_dim=2)  # flatten copies a non-contiguous input
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    """Copy an nn.MultiheadAttention's weights into a MultiHeadAttention, in place."""
    E = torch_mha.embed_dim
    targets = [module.q_proj, module.k_proj, module.v_proj]
    with torch.no_grad():
        for linear, weight in zip(targets, torch.split(torch_mha.in_proj_weight, E), strict=True):
            linear.weight.copy_(weight)
        if torch_mha.in_proj_bias is not None:
            for linear, bias in zip(targets, torch.split(torch_mha.in_proj_bias, E), strict=True):
                linear.bias.copy_(bias)
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if module.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
