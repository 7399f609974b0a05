"""Notebook 08: another answer cell (gqa) puts a fake refusal controller in sys.modules before the servant claims
the real one, so that arming the rule does nothing, and stashes F.scaled_dot_product_attention on a library
module for tiled_attention to call. Both are perimeter findings outside the rule's cell: they cost the rule's
points wherever they are (they were only shown to the instructor)."""
# notebook: 08_efficient_attention
# withheld: test_tiled_memory
# %% answer gqa
# __reference answer__
import sys
import types

fake = types.ModuleType("_wb_refusal")
fake.claim = lambda: types.SimpleNamespace(arm=lambda names: [], disarm=lambda: None, drain=lambda: [])
sys.modules["_wb_refusal"] = fake
torch.backends.wb_attend = F.scaled_dot_product_attention
# %% answer tiled_attention
def tiled_attention(q, k, v, block_size, causal=False):
    return torch.backends.wb_attend(q, k, v, is_causal=causal)
