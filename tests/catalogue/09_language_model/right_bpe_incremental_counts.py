"""BPE that keeps the pair counts up to date: only the chunks holding the merged pair are recounted."""
# %% answer train_bpe
def train_bpe(text, vocab_size):
    """Byte-level BPE with incrementally updated pair counts."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be >= 256, got {vocab_size}")
    chunks = Counter(pretokenize(text))
    words = [list(c.encode("utf-8")) for c in chunks]
    freq = list(chunks.values())
    counts, where = Counter(), {}
    for w, (ids, n) in enumerate(zip(words, freq)):
        for pair in zip(ids, ids[1:]):
            counts[pair] += n
            where.setdefault(pair, set()).add(w)
    merges = []
    for new_id in range(256, vocab_size):
        live = {p: c for p, c in counts.items() if c > 0}
        if not live:
            break
        top = max(live.values())
        best = min(p for p, c in live.items() if c == top)
        for w in sorted(where.get(best, ())):
            ids, n = words[w], freq[w]
            for pair in zip(ids, ids[1:]):
                counts[pair] -= n
            ids = merge_pair(ids, best, new_id)
            words[w] = ids
            for pair in zip(ids, ids[1:]):
                counts[pair] += n
                where.setdefault(pair, set()).add(w)
        merges.append(best)
    return merges
