"""decode turns each token into text on its own: multi-byte characters split over tokens break."""
# expect: decode(encode(s)) must give s back
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
                pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))  # learned first
                if pair not in rank:
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
    return "".join(vocab[int(i)].decode("utf-8", errors="replace") for i in ids)
