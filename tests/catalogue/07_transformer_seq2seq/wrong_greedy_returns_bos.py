"""Greedy decoding returns the <bos> column as well."""
# expect: do not return <bos>
# %% patch greedy_decode
# -     return ys[:, 1:]  # drop <bos>
# +     return ys
