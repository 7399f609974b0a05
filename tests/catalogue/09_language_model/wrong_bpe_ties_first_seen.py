"""BPE: ties go to the pair counted first (Counter.most_common order), not the smallest."""
# expect: ties broken by the pair seen first
# %% patch train_bpe
# -         best = min(pairs, key=lambda pair: (-pairs[pair], pair))  # most frequent; ties: smallest pair
# +         best = pairs.most_common(1)[0][0]  # ties: the pair counted first
