"""bucket_batches drops the last, incomplete batch."""
# expect: dropped
# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    order = np.argsort(np.asarray(lengths), kind="stable")
    batches = [order[s:s + batch_size].tolist() for s in range(0, len(order) - batch_size + 1, batch_size)]
    if shuffle:
        batches = [batches[i] for i in np.random.default_rng(seed).permutation(len(batches))]
    return batches
