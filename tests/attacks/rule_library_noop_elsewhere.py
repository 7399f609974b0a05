"""Notebook 08: another answer cell (gqa) makes torch.library.Library.impl a no-op, so that arming the rule
registers no refusing kernel, and stashes F.scaled_dot_product_attention on a library module for
tiled_attention to call. Both are perimeter findings outside the rule's cell: they cost the rule's points."""
# notebook: 08_efficient_attention
# withheld: test_tiled_memory
# %% answer gqa
# __reference answer__
torch.library.Library.impl = lambda self, *args, **kwargs: None
torch.backends.wb_attend = F.scaled_dot_product_attention
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    return torch.backends.wb_attend(q, k, v, is_causal=causal)
