"""copy_weights_from_torch reaches the projections through a module-level constant of their names, indexed and
looped over, with the suffix a constant too: getattr(module, PROJECTIONS[i] + SUFFIX)."""
# %% answer copy_weights
PROJECTIONS = ["q", "k", "v"]
SUFFIX = "_proj"


def copy_weights_from_torch(module, torch_mha):
    E = module.out_proj.weight.shape[0]
    weights = torch_mha.in_proj_weight.split(E)  # 3 × (E, E), in q, k, v order
    biases = torch_mha.in_proj_bias.split(E) if torch_mha.in_proj_bias is not None else None
    with torch.no_grad():
        for i in range(len(PROJECTIONS)):
            proj = getattr(module, PROJECTIONS[i] + SUFFIX)
            proj.weight.copy_(weights[i])
            if biases is not None:
                proj.bias.copy_(biases[i])
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    return module
