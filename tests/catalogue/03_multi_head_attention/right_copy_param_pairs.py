"""copy_weights pairs destination and source tensors in a list first, then copies them in one loop under no_grad."""
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    """Copy an nn.MultiheadAttention's weights into a MultiHeadAttention, in place."""
    E = torch_mha.embed_dim
    W = torch_mha.in_proj_weight
    pairs = [
        (module.q_proj.weight, W[:E]),
        (module.k_proj.weight, W[E:2 * E]),
        (module.v_proj.weight, W[2 * E:]),
        (module.out_proj.weight, torch_mha.out_proj.weight),
    ]
    if torch_mha.in_proj_bias is not None:
        b = torch_mha.in_proj_bias
        pairs += [(module.q_proj.bias, b[:E]), (module.k_proj.bias, b[E:2 * E]), (module.v_proj.bias, b[2 * E:])]
    if torch_mha.out_proj.bias is not None:
        pairs.append((module.out_proj.bias, torch_mha.out_proj.bias))
    with torch.no_grad():
        for dst, src in pairs:
            assert dst.shape == src.shape, f"shape mismatch: {tuple(dst.shape)} vs {tuple(src.shape)}"
            dst.copy_(src)
    return module
