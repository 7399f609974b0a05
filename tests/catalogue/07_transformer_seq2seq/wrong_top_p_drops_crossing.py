"""top-p drops the token whose probability crosses the threshold."""
# expect: crosses top_p is dropped
# %% patch sampling_probs
# -         mass_before = sorted_p.cumsum(-1) - sorted_p  # probability ranked strictly above
# -         keep_sorted = mass_before < top_p
# +         keep_sorted = sorted_p.cumsum(-1) <= top_p
