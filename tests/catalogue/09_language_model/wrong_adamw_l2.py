"""Adam with L2 regularisation: the decay is added to the gradient instead of decoupled."""
# expect: L2 regularisation
# %% patch adamw
# -     param = param * (1 - lr * weight_decay)  # decoupled decay: on the weights, not in the gradient
# +     grad = grad + weight_decay * param  # L2: the decay goes through the adaptive scaling
