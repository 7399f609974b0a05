"""Assigns torch_mha's tensors to each parameter's .data: right values, but the two modules share storage."""
# expect: shares their storage
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    projections = (module.q_proj, module.k_proj, module.v_proj)
    for proj, w in zip(projections, torch_mha.in_proj_weight.data.chunk(3, dim=0)):
        proj.weight.data = w
    if torch_mha.in_proj_bias is not None:
        for proj, b in zip(projections, torch_mha.in_proj_bias.data.chunk(3, dim=0)):
            proj.bias.data = b
    module.out_proj.weight.data = torch_mha.out_proj.weight.data
    if torch_mha.out_proj.bias is not None:
        module.out_proj.bias.data = torch_mha.out_proj.bias.data
    return module
