"""Binds torch_mha's Parameters (and views of in_proj_weight) instead of copying their values: shared storage."""
# expect: shares their storage
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    projections = (module.q_proj, module.k_proj, module.v_proj)
    for proj, w in zip(projections, torch_mha.in_proj_weight.detach().chunk(3, dim=0)):
        proj.weight = nn.Parameter(w)  # a view of in_proj_weight: no copy
    if torch_mha.in_proj_bias is not None:
        for proj, b in zip(projections, torch_mha.in_proj_bias.detach().chunk(3, dim=0)):
            proj.bias = nn.Parameter(b)
    module.out_proj.weight = torch_mha.out_proj.weight  # the very same Parameter
    if torch_mha.out_proj.bias is not None:
        module.out_proj.bias = torch_mha.out_proj.bias
    return module
