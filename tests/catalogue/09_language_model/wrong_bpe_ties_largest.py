"""BPE: among pairs with the same count the largest pair wins instead of the smallest."""
# expect: ties broken by the largest pair
# %% answer train_bpe
def train_bpe(text, vocab_size):
    """Byte-level BPE merges learned from text: a list of (a, b) pairs; merge i makes token 256 + i."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256 (the bytes), got {vocab_size}")
    chunks = Counter(pretokenize(text))  # each distinct chunk once, with how often it occurs
    words = [[list(chunk.encode("utf-8")), count] for chunk, count in chunks.items()]
    merges = []
    for new_id in range(256, vocab_size):
        pairs = Counter()
        for ids, count in words:
            for pair in zip(ids, ids[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], (-pair[0], -pair[1])))  # most frequent; ties: smallest pair
        for word in words:
            if len(word[0]) > 1:
                word[0] = merge_pair(word[0], best, new_id)
        merges.append(best)
    return merges
