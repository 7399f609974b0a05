"""output_projection_params counts a real nn.Linear built on the meta device, minus the weight when tied."""
# %% answer output_projection_params
def output_projection_params(d_model, vocab_size, tied=False, bias=True):
    """Parameters the output projection adds on top of the target embedding."""
    with torch.device("meta"):
        layer = nn.Linear(d_model, vocab_size, bias=bias)
    return sum(p.numel() for name, p in layer.named_parameters() if not (tied and name == "weight"))
