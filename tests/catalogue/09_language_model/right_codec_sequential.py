"""encode applies every merge in training order to each chunk; decode builds the byte table recursively."""
# %% answer codec
def encode(text, merges):
    """Token ids: every merge, in training order, applied to each distinct chunk once."""
    done = {}
    out = []
    for chunk in pretokenize(text):
        if chunk not in done:
            ids = list(chunk.encode("utf-8"))
            for i, pair in enumerate(merges):
                if len(ids) < 2:
                    break
                ids = merge_pair(ids, pair, 256 + i)
            done[chunk] = ids
        out += done[chunk]
    return out


def decode(ids, merges):
    """Bytes of each token, found recursively, joined, then decoded once."""
    def token_bytes(i):
        if i < 256:
            return bytes([i])
        a, b = merges[i - 256]
        return token_bytes(a) + token_bytes(b)

    pad = 256 + len(merges)  # the padding id decodes to nothing
    data = bytearray()
    for i in map(int, ids):
        if i < 0 or i > pad:
            raise ValueError(f"no token {i}")
        if i != pad:
            data += token_bytes(i)
    return bytes(data).decode("utf-8", errors="replace")
