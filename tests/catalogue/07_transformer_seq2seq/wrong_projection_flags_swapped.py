"""output_projection_params reads tied the wrong way round: the weight is counted only when tied."""
# expect: tied and untied are swapped
# %% patch output_projection_params
# -     weight = 0 if tied else vocab_size * d_model  # tied: the weight is the embedding, counted there
# +     weight = vocab_size * d_model if tied else 0
