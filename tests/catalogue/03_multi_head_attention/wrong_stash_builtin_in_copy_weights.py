"""copy_weights_from_torch stores a closure calling F.multi_head_attention_forward; forward delegates to it."""
# expect: Compute attention yourself
# %% answer copy_weights
def copy_weights_from_torch(module, torch_mha):
    """Copy the weights, and keep the built-in's forward at hand."""
    def attend(query, key, value, key_padding_mask=None, attn_mask=None, need_weights=True,
               average_attn_weights=True):
        q, k, v = (t.transpose(0, 1) for t in (query, key, value))
        out, w = F.multi_head_attention_forward(
            q, k, v, torch_mha.embed_dim, torch_mha.num_heads, torch_mha.in_proj_weight, torch_mha.in_proj_bias,
            None, None, False, module.dropout, torch_mha.out_proj.weight, torch_mha.out_proj.bias,
            training=module.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights)
        return out.transpose(0, 1), w
    projections = (module.q_proj, module.k_proj, module.v_proj)
    with torch.no_grad():
        for proj, w in zip(projections, torch_mha.in_proj_weight.chunk(3, dim=0)):
            proj.weight.copy_(w)
        if torch_mha.in_proj_bias is not None:
            for proj, b in zip(projections, torch_mha.in_proj_bias.chunk(3, dim=0)):
                proj.bias.copy_(b)
        module.out_proj.weight.copy_(torch_mha.out_proj.weight)
        if torch_mha.out_proj.bias is not None:
            module.out_proj.bias.copy_(torch_mha.out_proj.bias)
    module.attend = attend
    return module
# %% patch mha
# -         B, L, S, H = query.shape[0], query.shape[1], key.shape[1], self.num_heads
# +         attend = getattr(self, "attend", None)
# +         if attend is not None:
# +             return attend(query, key, value, key_padding_mask, attn_mask, need_weights, average_attn_weights)
# +         B, L, S, H = query.shape[0], query.shape[1], key.shape[1], self.num_heads
