"""A running-average helper class beside masked_mean_pool, with __iadd__, __float__ and __format__ (for a
training log: avg += loss; f"{avg:.3f}"): ordinary protocol methods in a cell outside any rule."""
# %% answer masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    """Mean of x (B, L, E) over the positions where key_padding_mask (B, L) is False."""
    keep = (~key_padding_mask).unsqueeze(-1).to(x.dtype)  # (B, L, 1): 1 for real tokens
    total = (x * keep).sum(dim=1)  # (B, E)
    count = keep.sum(dim=1).clamp(min=1.0)  # (B, 1); an all-padding row divides 0 by 1
    return total / count

class Average:
    """A running mean for the training loop's log: avg += loss.item(); print(f"{avg:.3f}")."""

    def __init__(self):
        self.total, self.count = 0.0, 0

    def __iadd__(self, value):
        self.total += float(value)
        self.count += 1
        return self

    def __float__(self):
        return self.total / max(self.count, 1)

    def __format__(self, spec):
        return format(float(self), spec)
