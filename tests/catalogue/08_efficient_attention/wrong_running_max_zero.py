"""Online softmax whose running max starts at 0 instead of -inf (0/0 when every score is very negative)."""
# expect: start the running max at -inf
# %% patch tiled_attention
# -         m = q.new_full((*q_blk.shape[:-1], 1), float("-inf"))  # running max      (..., bq, 1)
# +         m = q.new_zeros((*q_blk.shape[:-1], 1))  # should be -inf

# -                 future = torch.arange(k0, k1, device=q.device) > torch.arange(q0, q1, device=q.device)[:, None]
# +                 future = torch.arange(k0, k1) > torch.arange(q0, q1)[:, None]
