"""bucket_batches shuffles with the global NumPy random state and ignores seed."""
# expect: deterministic
# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    order = np.argsort(np.asarray(lengths), kind="stable")
    batches = [order[s:s + batch_size].tolist() for s in range(0, len(order), batch_size)]
    if shuffle:
        np.random.shuffle(batches)
    return batches
