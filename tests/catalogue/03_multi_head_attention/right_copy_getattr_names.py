"""copy_weights_from_torch reaches q_proj, k_proj and v_proj by name: getattr(module, f"{name}_proj") over a literal
tuple of names, as many learners write it."""
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    E = module.out_proj.weight.shape[0]
    with torch.no_grad():
        for name in ("q", "k", "v"):
            index = "qkv".index(name)
            proj = getattr(module, f"{name}_proj")
            proj.weight.copy_(torch_mha.in_proj_weight[index * E : (index + 1) * E])
            if torch_mha.in_proj_bias is not None:
                proj.bias.copy_(torch_mha.in_proj_bias[index * E : (index + 1) * E])
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
