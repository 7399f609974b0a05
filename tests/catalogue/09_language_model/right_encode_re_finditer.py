"""encode splits with its own re.compile(PRETOKENIZE).finditer and picks the lowest-ranked pair with min over (rank, pair); decode from a dict."""
# %% answer codec
CHUNK_RE = re.compile(PRETOKENIZE)


def encode(text, merges):
    """Token ids of text (a list of ints): merges applied in the order they were learned."""
    rank = {pair: i for i, pair in enumerate(merges)}
    out = []
    for match in CHUNK_RE.finditer(text):
        ids = list(match.group().encode("utf-8"))
        while len(ids) >= 2:
            present = [(rank[p], p) for p in zip(ids, ids[1:]) if p in rank]
            if not present:
                break
            r, pair = min(present)  # the pair learned first
            ids = merge_pair(ids, pair, 256 + r)
        out.extend(ids)
    return out


def decode(ids, merges):
    """The text of a list of token ids (bytes that are not valid UTF-8 become '�')."""
    table = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(merges):
        table[256 + i] = table[a] + table[b]
    table[256 + len(merges)] = b""  # padding
    unknown = [int(t) for t in ids if int(t) not in table]
    if unknown:
        raise ValueError(f"ids outside the vocabulary: {unknown[:3]}")
    return b"".join(table[int(t)] for t in ids).decode("utf-8", errors="replace")
