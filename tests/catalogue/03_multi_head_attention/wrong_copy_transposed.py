"""The weights are copied transposed (as if nn.Linear stored (in, out))."""
# expect: transposed
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    with torch.no_grad():
        w_q, w_k, w_v = torch_mha.in_proj_weight.chunk(3)
        module.q_proj.weight.copy_(w_q.T)
        module.k_proj.weight.copy_(w_k.T)
        module.v_proj.weight.copy_(w_v.T)
        if torch_mha.in_proj_bias is not None:
            b_q, b_k, b_v = torch_mha.in_proj_bias.chunk(3)
            module.q_proj.bias.copy_(b_q)
            module.k_proj.bias.copy_(b_k)
            module.v_proj.bias.copy_(b_v)
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
