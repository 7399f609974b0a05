"""attention_numpy returns two 31.6 MB arrays: over the 32 MiB a reply may bring (each under a frame's cap).

The grader dropped such a reply unread and waited out the call (62 s per submission), and every
test of the notebook then failed with "ran over the 60 s limit of one call", tests that never
call it included. The kernel now refuses to send it: that call fails at once, saying so.
"""
# expect: the reply was larger than 32 MiB
# %% answer attention_numpy
def attention_numpy(q, k, v):
    big = np.zeros(31_600_000 // 8)
    return np.stack([big, big])
