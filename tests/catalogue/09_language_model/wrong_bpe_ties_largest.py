"""BPE: among pairs with the same count the largest pair wins instead of the smallest."""
# expect: ties broken by the largest pair
# %% patch train_bpe
# -         best = min(pairs, key=lambda pair: (-pairs[pair], pair))  # most frequent; ties: smallest pair
# +         best = min(pairs, key=lambda pair: (-pairs[pair], (-pair[0], -pair[1])))  # most frequent; ties: smallest pair
