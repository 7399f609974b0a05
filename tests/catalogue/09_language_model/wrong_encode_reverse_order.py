"""encode merges the present pair learned last first (max rank instead of min)."""
# expect: merges applied in the reverse order
# %% patch codec
# -                 pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))  # learned first
# +                 pair = max(zip(ids, ids[1:]), key=lambda p: rank.get(p, -1))  # learned last
