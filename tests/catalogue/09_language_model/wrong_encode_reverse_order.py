"""encode merges the present pair learned last first (max rank instead of min)."""
# expect: merges applied in the reverse order
# %% answer codec
def encode(text, merges):
    """Token ids of text (a list of ints): merges applied in the order they were learned."""
    rank = {pair: i for i, pair in enumerate(merges)}
    ids_of = {}  # chunk -> its ids (code repeats its chunks a lot)
    out = []
    for chunk in pretokenize(text):
        if chunk not in ids_of:
            ids = list(chunk.encode("utf-8"))
            while len(ids) > 1:
                pair = max(zip(ids, ids[1:]), key=lambda p: rank.get(p, -1))  # learned last
                if pair not in rank:  # none of the pairs is a merge
                    break
                ids = merge_pair(ids, pair, 256 + rank[pair])
            ids_of[chunk] = ids
        out.extend(ids_of[chunk])
    return out


def decode(ids, merges):
    """The text of a list of token ids (bytes that are not valid UTF-8 become '�')."""
    vocab = [bytes([i]) for i in range(256)]
    for a, b in merges:
        vocab.append(vocab[a] + vocab[b])
    return b"".join(vocab[int(i)] for i in ids).decode("utf-8", errors="replace")
