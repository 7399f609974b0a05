"""KV cache with a preallocated buffer that doubles when full; append returns views of the filled part."""
# %% answer kv_cache
class KVCache:
    def __init__(self):
        self.k_buf = self.v_buf = None
        self.length = 0

    def __len__(self):
        return self.length

    def append(self, k, v):
        T = k.shape[-2]
        if self.k_buf is None or self.length + T > self.k_buf.shape[-2]:
            capacity = max(16, 2 * (self.length + T))
            k_new = k.new_empty(*k.shape[:-2], capacity, k.shape[-1])
            v_new = v.new_empty(*v.shape[:-2], capacity, v.shape[-1])
            if self.k_buf is not None:
                k_new[..., : self.length, :] = self.k_buf[..., : self.length, :]
                v_new[..., : self.length, :] = self.v_buf[..., : self.length, :]
            self.k_buf, self.v_buf = k_new, v_new
        self.k_buf[..., self.length : self.length + T, :] = k
        self.v_buf[..., self.length : self.length + T, :] = v
        self.length += T
        return self.k_buf[..., : self.length, :], self.v_buf[..., : self.length, :]
