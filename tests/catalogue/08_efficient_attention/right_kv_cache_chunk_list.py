"""KVCache keeps lists of chunks (concatenated on append and folded back to one), len() sums their lengths."""
# %% answer kv_cache
class KVCache:
    """The keys and values of the positions seen so far, for one attention layer."""

    def __init__(self):
        self.key_chunks: list[torch.Tensor] = []
        self.value_chunks: list[torch.Tensor] = []

    def __len__(self):
        """Number of cached positions."""
        return sum(chunk.shape[-2] for chunk in self.key_chunks)

    def append(self, k, v):
        """Add new keys/values (B, H, T_new, d) at the end; return all cached (keys, values)."""
        self.key_chunks.append(k)
        self.value_chunks.append(v)
        keys = torch.cat(self.key_chunks, dim=-2)
        values = torch.cat(self.value_chunks, dim=-2)
        self.key_chunks, self.value_chunks = [keys], [values]  # one chunk again: no re-concatenation later
        return keys, values
