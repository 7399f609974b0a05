"""An answer written from the student notebook alone, without the reference: every stub."""

# %% answer train_bpe
def train_bpe(text, vocab_size):
    """Byte-level BPE merges learned from text: a list of (a, b) pairs; merge i makes token 256 + i."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256, got {vocab_size}")
    # identical chunks behave identically, so keep each distinct chunk once with its frequency
    freq = Counter(pretokenize(text))
    words = [list(chunk.encode("utf-8")) for chunk in freq]
    weights = list(freq.values())
    learned = []
    for new_id in range(256, vocab_size):
        tally = Counter()
        for word, w in zip(words, weights):
            for a, b in zip(word, word[1:]):
                tally[(a, b)] += w
        if not tally:  # every chunk is a single token already
            break
        best = min(tally, key=lambda pair: (-tally[pair], pair))
        learned.append(best)
        words = [merge_pair(word, best, new_id) if len(word) > 1 else word for word in words]
    return learned


# %% answer codec
def encode(text, merges):
    """Token ids of text (a list of ints): merges applied in the order they were learned."""
    rank = {tuple(pair): i for i, pair in enumerate(merges)}
    memo = {}
    result = []
    for chunk in pretokenize(text):
        if chunk not in memo:
            seq = list(chunk.encode("utf-8"))
            while len(seq) > 1:
                candidates = [(rank[p], p) for p in zip(seq, seq[1:]) if p in rank]
                if not candidates:
                    break
                r, pair = min(candidates)
                seq = merge_pair(seq, pair, 256 + r)
            memo[chunk] = seq
        result.extend(memo[chunk])
    return result


def decode(ids, merges):
    """The text of a list of token ids (bytes that are not valid UTF-8 become '�')."""
    table = [bytes([b]) for b in range(256)]
    for a, b in merges:  # a merge only refers to tokens made before it
        table.append(table[a] + table[b])
    pad_id = len(table)
    pieces = []
    for t in ids:
        t = int(t)
        if t == pad_id:
            continue
        if not 0 <= t < pad_id:
            raise ValueError(f"token id {t} is not in the vocabulary")
        pieces.append(table[t])
    raw = b"".join(pieces)
    return raw.decode("utf-8", errors="replace")


# %% answer lm_loss
def lm_loss(logits, tokens, pad_id):
    """Mean next-token cross-entropy: logits[:, t] predicts tokens[:, t + 1]; padding targets ignored."""
    preds = logits[:, :-1, :]
    targets = tokens[:, 1:]
    per_token = F.cross_entropy(preds.reshape(-1, preds.shape[-1]), targets.reshape(-1), reduction="none")
    keep = (targets.reshape(-1) != pad_id).to(per_token.dtype)
    return (per_token * keep).sum() / keep.sum()


# %% answer attention
class KVCache:
    """Given (notebook 08 graded it): the keys and values of the positions seen so far, for one layer."""

    def __init__(self):
        self.keys = self.values = None  # (B, H, T, d) once something is cached

    def __len__(self):
        return 0 if self.keys is None else self.keys.shape[-2]

    def append(self, k, v):  # (B, H, T_new, d) each: add at the end, return all cached (keys, values)
        if self.keys is None:
            self.keys, self.values = k, v
        else:  # (B, H, past + T_new, d)
            self.keys, self.values = torch.cat([self.keys, k], dim=-2), torch.cat([self.values, v], dim=-2)
        return self.keys, self.values

class CausalSelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        if embed_dim % num_heads != 0:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=False)

    def _heads(self, t):
        B, T, _ = t.shape
        return t.view(B, T, self.num_heads, self.head_dim).transpose(1, 2)  # (B, H, T, d)

    def forward(self, x, cache=None):
        B, T, E = x.shape
        past = 0 if cache is None else len(cache)
        pos = torch.arange(past, past + T, device=x.device)
        q = rotary_embedding(self._heads(self.q_proj(x)), pos)
        k = rotary_embedding(self._heads(self.k_proj(x)), pos)
        v = self._heads(self.v_proj(x))
        if cache is not None:
            k, v = cache.append(k, v)
        total = k.shape[-2]
        # query i sits at absolute position past + i; key j at position j
        q_pos = pos.unsqueeze(1)
        k_pos = torch.arange(total, device=x.device).unsqueeze(0)
        allowed = k_pos <= q_pos  # (T, total)
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return self.out_proj(ctx.transpose(1, 2).reshape(B, T, E))


# %% answer decoder_block
class DecoderBlock(nn.Module):
    """Pre-norm decoder block: x + attn(norm1(x)), then x + ffn(norm2(x))."""

    def __init__(self, embed_dim, num_heads, d_ff):
        super().__init__()
        self.norm1 = RMSNorm(embed_dim)
        self.attn = CausalSelfAttention(embed_dim, num_heads)
        self.norm2 = RMSNorm(embed_dim)
        self.ffn = SwiGLUFeedForward(embed_dim, d_ff)

    def forward(self, x, cache=None):
        x = x + self.attn(self.norm1(x), cache)
        return x + self.ffn(self.norm2(x))


# %% answer language_model
class LanguageModel(nn.Module):
    """Token embedding, pre-norm decoder blocks, final RMSNorm, linear head."""

    def __init__(self, vocab_size, embed_dim, num_heads, num_layers, d_ff):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.blocks = nn.ModuleList(DecoderBlock(embed_dim, num_heads, d_ff) for _ in range(num_layers))
        self.norm = RMSNorm(embed_dim)
        self.head = nn.Linear(embed_dim, vocab_size, bias=False)

    def new_cache(self):
        """One empty KVCache per block."""
        return [KVCache() for _ in self.blocks]

    def forward(self, tokens, caches=None):
        h = self.embed(tokens)
        for i, block in enumerate(self.blocks):
            h = block(h, None if caches is None else caches[i])
        return self.head(self.norm(h))


# %% answer adamw
def adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW step for one tensor: (new param, new exp_avg, new exp_avg_sq); step counts from 1."""
    beta1, beta2 = betas
    decayed = param * (1 - lr * weight_decay)
    m = beta1 * exp_avg + (1 - beta1) * grad
    v = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1 ** step)
    v_hat = v / (1 - beta2 ** step)
    new_param = decayed - lr * m_hat / (torch.sqrt(v_hat) + eps)
    return new_param, m, v


# %% answer lr_schedule
def lr_at(step, max_lr, min_lr, warmup_steps, total_steps):
    """Linear warm-up to max_lr over warmup_steps steps, then cosine decay to min_lr at total_steps."""
    if step < warmup_steps:
        return float(max_lr * (step + 1) / warmup_steps)
    if step > total_steps:
        return float(min_lr)
    span = total_steps - warmup_steps
    progress = (step - warmup_steps) / span if span > 0 else 1.0
    return float(min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * progress)))


# %% answer clip_grad
def clip_grad_global(grads, max_norm):
    """(gradients rescaled together to a global norm of at most max_norm, the global norm before)."""
    if len(grads) == 0:
        return [], torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g) for g in grads])
    total = torch.linalg.vector_norm(norms)
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return [g * factor.to(g.dtype) for g in grads], total


# %% answer perplexity
@torch.no_grad()
def perplexity(model, batches, pad_id):
    """exp(mean next-token loss over every counted target of every batch)."""
    nll_sum, n_targets = 0.0, 0
    for tokens in batches:
        logits = model(tokens)
        targets = tokens[:, 1:].reshape(-1)
        nll = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(), targets, reduction="none")
        counted = targets != pad_id
        nll_sum += nll[counted].sum().item()
        n_targets += int(counted.sum())
    return math.exp(nll_sum / n_targets)


# %% answer sample
@torch.no_grad()
def sample(model, prompt, num_new_tokens, temperature=1.0, top_k=None, top_p=None, generator=None, use_cache=True):
    """prompt (B, P) -> (B, P + num_new_tokens), one multinomial draw per step, with or without a KV cache."""
    seq = prompt
    if num_new_tokens <= 0:
        return seq
    caches = model.new_cache() if use_cache else None
    logits = model(seq, caches)  # prefill (or the first full pass)
    for n in range(num_new_tokens):
        probs = sampling_probs(logits[:, -1], temperature, top_k, top_p)
        nxt = torch.multinomial(probs, 1, generator=generator)
        seq = torch.cat([seq, nxt], dim=1)
        if n + 1 == num_new_tokens:
            break
        logits = model(nxt, caches) if use_cache else model(seq)
    return seq
