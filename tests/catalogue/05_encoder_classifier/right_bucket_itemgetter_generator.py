"""bucket_batches sorts (index, length) pairs with operator.itemgetter(1) and cuts them with a typing.Generator helper; torch.randperm shuffle."""
# %% answer bucket_batches
import operator
from typing import Generator


def chunked(items: list[int], size: int) -> Generator[list[int], None, None]:
    """Consecutive slices of `size` items (the last one may be shorter)."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    """Indices sorted by length and cut into batches of batch_size; batch order shuffled if asked."""
    by_length = sorted(enumerate(int(n) for n in lengths), key=operator.itemgetter(1))
    order = [index for index, _ in by_length]
    batches = list(chunked(order, batch_size))
    if shuffle:
        gen = torch.Generator().manual_seed(seed)
        batches = [batches[i] for i in torch.randperm(len(batches), generator=gen).tolist()]
    return batches
