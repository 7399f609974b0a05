"""bucket_batches sorts range(n) with key=lengths.__getitem__ and shuffles with random.Random(seed)."""
# %% answer bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    """Indices sorted by length and cut into batches of batch_size; batch order shuffled if asked."""
    lengths = [int(n) for n in lengths]  # works for lists, arrays and tensors alike
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches = []
    for start in range(0, len(order), batch_size):
        batches.append(order[start:start + batch_size])
    if shuffle:
        random.Random(seed).shuffle(batches)  # its own generator: the global state is untouched
    return batches
