"""train_bpe over every chunk occurrence (no Counter of chunks), pairs from a typing.Generator helper, ties by min over the top pairs."""
# %% answer train_bpe
from typing import Generator


def adjacent_pairs(ids: list[int]) -> Generator[tuple[int, int], None, None]:
    """Every pair of neighbouring ids, overlapping ones included."""
    for i in range(len(ids) - 1):
        yield ids[i], ids[i + 1]


def train_bpe(text, vocab_size):
    """Byte-level BPE merges learned from text: a list of (a, b) pairs; merge i makes token 256 + i."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256, got {vocab_size}")
    chunks = [list(chunk.encode("utf-8")) for chunk in pretokenize(text)]
    merges = []
    while 256 + len(merges) < vocab_size:
        counts = {}
        for ids in chunks:
            for pair in adjacent_pairs(ids):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break  # no chunk has two tokens left
        top = max(counts.values())
        best = min(pair for pair, n in counts.items() if n == top)
        new_id = 256 + len(merges)
        chunks = [merge_pair(ids, best, new_id) if len(ids) > 1 else ids for ids in chunks]
        merges.append(best)
    return merges
