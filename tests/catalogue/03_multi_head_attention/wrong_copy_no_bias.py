"""Only the weights are copied, not in_proj_bias."""
# expect: Copy in_proj_bias too
# %% patch copy_weights
# -     projections = (module.q_proj, module.k_proj, module.v_proj)

# -         for proj, w in zip(projections, torch_mha.in_proj_weight.chunk(3, dim=0)):
# -             proj.weight.copy_(w)
# -         if torch_mha.in_proj_bias is not None:
# -             for proj, b in zip(projections, torch_mha.in_proj_bias.chunk(3, dim=0)):
# -                 proj.bias.copy_(b)
# +         w_q, w_k, w_v = torch_mha.in_proj_weight.chunk(3)
# +         module.q_proj.weight.copy_(w_q)
# +         module.k_proj.weight.copy_(w_k)
# +         module.v_proj.weight.copy_(w_v)
