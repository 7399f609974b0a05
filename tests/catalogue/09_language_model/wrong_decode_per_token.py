"""decode turns each token into text on its own: multi-byte characters split over tokens break."""
# expect: decode(encode(s)) must give s back
# %% patch codec
# -     return b"".join(vocab[int(i)] for i in ids).decode("utf-8", errors="replace")
# +     return "".join(vocab[int(i)].decode("utf-8", errors="replace") for i in ids)
