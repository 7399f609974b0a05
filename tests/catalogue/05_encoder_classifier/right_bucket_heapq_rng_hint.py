"""bucket_batches orders the examples with a heapq of (length, index) and shuffles through a helper typed rng: np.random.Generator."""
# %% answer bucket_batches
import heapq


def shuffle_batches(batches: list[list[int]], rng: np.random.Generator) -> list[list[int]]:
    """The batches in a random order drawn from rng (the global random state is not used)."""
    return [batches[i] for i in rng.permutation(len(batches))]


def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    """Indices sorted by length and cut into batches of batch_size; batch order shuffled if asked."""
    heap = [(int(n), i) for i, n in enumerate(lengths)]
    heapq.heapify(heap)
    order = [heapq.heappop(heap)[1] for _ in range(len(heap))]  # shortest first, ties by index
    batches = [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
    if shuffle:
        batches = shuffle_batches(batches, np.random.default_rng(seed))
    return batches
