"""encode memoises each chunk with functools.lru_cache on an inner function; decode maps ids through vocab.__getitem__."""
# %% answer codec
import functools


def encode(text, merges):
    """Token ids of text (a list of ints): merges applied in the order they were learned."""
    rank = {pair: i for i, pair in enumerate(merges)}

    @functools.lru_cache(maxsize=None)
    def encode_chunk(chunk):
        ids = list(chunk.encode("utf-8"))
        while True:
            ranked = [rank[p] for p in zip(ids, ids[1:]) if p in rank]
            if not ranked:
                return tuple(ids)
            first = min(ranked)  # the merge learned first among the pairs present
            ids = merge_pair(ids, merges[first], 256 + first)

    return [token for chunk in pretokenize(text) for token in encode_chunk(chunk)]


def decode(ids, merges):
    """The text of a list of token ids (bytes that are not valid UTF-8 become '�')."""
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(merges, start=256):
        vocab[i] = vocab[a] + vocab[b]
    vocab[len(vocab)] = b""  # the padding id decodes to nothing
    try:
        return b"".join(map(vocab.__getitem__, map(int, ids))).decode("utf-8", errors="replace")
    except KeyError as missing:
        raise ValueError(f"no token {missing}") from None
