"""copy_weights_from_torch gathers the projections with a comprehension, getattr(module, f"{name}_proj") for
name in a literal tuple, then copies the stacked in_proj slices in order."""
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    E = module.out_proj.weight.shape[0]
    projections = [getattr(module, f"{name}_proj") for name in ("q", "k", "v")]
    with torch.no_grad():
        for index, proj in enumerate(projections):
            proj.weight.copy_(torch_mha.in_proj_weight[index * E : (index + 1) * E])
            if torch_mha.in_proj_bias is not None:
                proj.bias.copy_(torch_mha.in_proj_bias[index * E : (index + 1) * E])
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
