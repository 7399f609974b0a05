"""Only the weights are copied, not in_proj_bias."""
# expect: Copy in_proj_bias too
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    with torch.no_grad():
        w_q, w_k, w_v = torch_mha.in_proj_weight.chunk(3)
        module.q_proj.weight.copy_(w_q)
        module.k_proj.weight.copy_(w_k)
        module.v_proj.weight.copy_(w_v)
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
