"""train_bpe picks the best pair from a heapq of (-count, pair) and reports progress through a module-level logging logger (logger.debug)."""
# %% answer train_bpe
import heapq
import logging

logger = logging.getLogger(__name__)


def train_bpe(text, vocab_size):
    """Byte-level BPE merges learned from text: a list of (a, b) pairs; merge i makes token 256 + i."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the 256 byte tokens")
    freq = Counter(pretokenize(text))  # chunk -> how often it occurs
    seqs = {chunk: list(chunk.encode("utf-8")) for chunk in freq}
    merges = []
    for new_id in range(256, vocab_size):
        counts = Counter()
        for chunk, ids in seqs.items():
            for pair in zip(ids, ids[1:]):
                counts[pair] += freq[chunk]
        if not counts:
            logger.debug("stopping after %d merges: no chunk has two tokens left", len(merges))
            break
        # the smallest (-count, pair) is the most frequent pair, ties going to the smaller pair
        heap = [(-n, pair) for pair, n in counts.items()]
        heapq.heapify(heap)
        _, best = heap[0]
        logger.debug("merge %d: %s (count %d) -> %d", len(merges), best, counts[best], new_id)
        for chunk, ids in seqs.items():
            if len(ids) > 1:
                seqs[chunk] = merge_pair(ids, best, new_id)
        merges.append(best)
    return merges
