# %% [markdown]
# # 07 · The Transformer encoder–decoder: translation end to end
#
# **Objectives.** By the end of this notebook you can
#
# 1. build the decoder input by *teacher forcing* (`shift_right`) and say why the
#    decoder must not see the token it predicts;
# 2. implement a `TransformerDecoderBlock` (masked self-attention → cross-attention →
#    feed-forward) that loads an `nn.TransformerDecoderLayer` state dict and matches it,
#    in post-norm and pre-norm;
# 3. assemble a `Seq2SeqTransformer` (embeddings × $\sqrt{d_\text{model}}$, sinusoidal
#    positions, encoder and decoder stacks, output projection with weight tying) and count
#    the parameters of the paper's base model;
# 4. train it with label smoothing, padding-aware loss and the warm-up ("Noam") schedule;
# 5. translate with greedy decoding, beam search with a length penalty, and temperature /
#    top-k / top-p sampling;
# 6. read cross-attention maps, see contextual embeddings at work ("bank"), and save a
#    model *with its vocabularies* so that it translates the same after reloading.
#
# **How to work.** Fill in every cell that says `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run the toy call below it, then the visible test.
# Visible tests give points and say what is likely wrong; hidden tests check more
# (other shapes, masks, norm placements, hand-built models) when your notebook is graded.
# Keep all your code inside the answer cells: only those are graded.

# %% [setup] id=setup
# NBVAL_IGNORE_OUTPUT
# Setup: imports, seeds, device. In Colab this cell also fetches the helper module.
import os
import sys
import urllib.request

WORKBOOK_URL = os.environ.get(
    "WORKBOOK_URL", "https://raw.githubusercontent.com/attention-workbook/workbook/main/notebooks"
)
if ("google.colab" in sys.modules or os.environ.get("WORKBOOK_FORCE_FETCH")) and not os.path.exists(
    "workbook.py"
):
    urllib.request.urlretrieve(f"{WORKBOOK_URL}/workbook.py", "workbook.py")

import math
import random
import tempfile
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm.auto import tqdm

from workbook import GRADING, Check, heatmap, pick_device, scaled, seed_everything

seed_everything(0)
device = pick_device()
torch.set_num_threads(1)  # tiny models: one thread is as fast, and much faster on a shared CPU
torch.set_printoptions(precision=4, sci_mode=False)
print("torch", torch.__version__, "| device:", device, "| grading mode:", GRADING)

# %% [markdown]
# ## 1. The task: a toy language pair with reordering
#
# Real translation data is large; here we make our own language pair, generated from a
# seed, small enough to train on a laptop CPU in about a minute but with the features that
# make translation need attention:
#
# * **Different vocabularies.** The source is English-like; the target uses its own
#   (made-up, Hindi-flavoured) words, so nothing can be copied.
# * **Reordering.** The source is *subject–verb–object* with adjectives before the noun
#   and prepositions; the target is *subject–object–verb* (like Hindi or Japanese), puts
#   adjectives after the noun in mirror order, uses postpositions, and moves a final
#   adverb to the front. The alignment is therefore not monotonic: the first target word
#   can come from the last source word.
# * **Ambiguity.** The source word *bank* has two translations: *tijori* (money) after
#   *robs* / *pays*, *kinara* (river side) after *crosses* / *cleans*. A word-by-word
#   dictionary cannot translate it; the encoder has to look at the context.
# * **Variable length**, 5 to 16 source tokens in the train / validation / test splits (so
#   batches need padding and masks), and a separate `long` split of 17 to 25 tokens that
#   the model never sees in training.

# %%
LEXICON = {  # source word -> target word (one to one; "bank" is handled below)
    "the": "ka", "a": "mi",
    "big": "gora", "small": "tupi", "red": "laal", "old": "puro", "young": "nava",
    "happy": "suki", "green": "hara", "fast": "tezo",
    "dog": "kuta", "cat": "bili", "man": "admi", "woman": "aurat", "boy": "lada",
    "girl": "ladi", "bird": "chidi", "horse": "goda", "king": "raja", "teacher": "guru",
    "farmer": "kisan", "book": "kitab", "ball": "gend", "apple": "seb", "car": "gadi",
    "sees": "dekhe", "likes": "pasand", "chases": "bhaga", "finds": "pae", "helps": "madad",
    "watches": "nazar", "robs": "loote", "pays": "chuka", "crosses": "paar", "cleans": "saaf",
    "in": "mein", "near": "paas", "with": "saath",
    "house": "ghar", "garden": "bagh", "park": "udyan", "river": "nadi", "city": "shahar",
    "today": "aaj", "again": "phir", "slowly": "dheere",
}
BANK = {"money": "tijori", "river": "kinara"}  # the two senses of "bank"
DETS = ["the", "a"]
ADJS = ["big", "small", "red", "old", "young", "happy", "green", "fast"]
AGENTS = ["dog", "cat", "man", "woman", "boy", "girl", "bird", "horse", "king", "teacher", "farmer"]
THINGS = ["book", "ball", "apple", "car"]
VERBS = {"sees": None, "likes": None, "chases": None, "finds": None, "helps": None,
         "watches": None, "robs": "money", "pays": "money", "crosses": "river", "cleans": "river"}
PREPS = ["in", "near", "with"]
PLACES = ["house", "garden", "park", "river", "city"]
ADVS = ["today", "again", "slowly"]


def noun_phrase(rng, nouns):
    """Determiner, 0-2 adjectives, noun -> (source words, target words: det noun adjs mirrored)."""
    det, noun = rng.choice(DETS), rng.choice(nouns)
    adjs = rng.sample(ADJS, rng.choices([0, 1, 2], [5, 3, 2])[0])
    src = [det, *adjs, noun]
    tgt = [LEXICON[det], LEXICON.get(noun, noun), *[LEXICON[a] for a in reversed(adjs)]]
    return src, tgt


def make_pair(rng):
    """One sentence pair: SVO source -> SOV target with postpositions and a fronted adverb."""
    subj_s, subj_t = noun_phrase(rng, AGENTS)
    verb = rng.choice(list(VERBS))
    if VERBS[verb] is not None and rng.random() < 0.5:  # "bank": its sense comes from the verb
        obj_s, obj_t = noun_phrase(rng, ["bank"])
        obj_t[1] = BANK[VERBS[verb]]
    else:
        obj_s, obj_t = noun_phrase(rng, AGENTS + THINGS)
    src, tgt_pps = subj_s + [verb] + obj_s, []
    for _ in range(rng.choices([0, 1, 2, 3], [6, 7, 5, 2])[0]):
        prep = rng.choice(PREPS)
        pp_s, pp_t = noun_phrase(rng, PLACES)
        src += [prep] + pp_s
        tgt_pps += pp_t + [LEXICON[prep]]  # postposition: after its noun phrase
    tgt = subj_t + obj_t + tgt_pps + [LEXICON[verb]]  # the verb goes last
    if rng.random() < 0.3:
        adverb = rng.choice(ADVS)
        src.append(adverb)  # last in the source ...
        tgt.insert(0, LEXICON[adverb])  # ... first in the target
    return src, tgt


def make_splits(seed, n_train, n_val, n_test, n_long, max_src_len=16):
    """Disjoint splits: train/val/test of at most max_src_len source tokens, 'long' of more."""
    rng, seen, splits = random.Random(seed), set(), {}
    for name, n in (("train", n_train), ("val", n_val), ("test", n_test), ("long", n_long)):
        pairs = []
        while len(pairs) < n:
            src, tgt = make_pair(rng)
            key = " ".join(src)
            too_long = len(src) > max_src_len
            if key in seen or too_long != (name == "long"):
                continue
            seen.add(key)
            pairs.append((src, tgt))
        splits[name] = pairs
    return splits


splits = make_splits(seed=0, n_train=scaled(4000, 256), n_val=scaled(300, 32),
                     n_test=scaled(1000, 64), n_long=scaled(300, 16))
for name, pairs in splits.items():
    print(f"{name:>5}: {len(pairs):5d} pairs")
for src, tgt in splits["train"][:4]:
    print(" ".join(src), "\n   ->", " ".join(tgt))

# %% [markdown]
# Each language gets its own vocabulary, built from the training split, with four
# special tokens: `<pad>` fills short rows of a batch, `<bos>` starts every decoder
# input, `<eos>` ends every target, `<unk>` stands for a word never seen in training.
# The **vocabularies are part of the model**: ids mean nothing without them, which is
# why section 12 saves them in the checkpoint.

# %%
PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]


def build_vocab(sentences):
    """itos list: the special tokens, then every word of the sentences, sorted."""
    return SPECIALS + sorted({w for s in sentences for w in s})


def encode_batch(sentences, stoi, add_eos):
    """Word lists -> (B, L) LongTensor of ids, right-padded with PAD (EOS appended if asked)."""
    rows = [[stoi.get(w, UNK) for w in s] + ([EOS] if add_eos else []) for s in sentences]
    out = torch.full((len(rows), max(map(len, rows))), PAD, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row)
    return out


def ids_to_words(ids, itos):
    """One row of ids -> words, stopping at EOS (or PAD)."""
    words = []
    for i in ids.tolist():
        if i in (EOS, PAD):
            break
        words.append(itos[i])
    return words


src_itos = build_vocab(s for s, _ in splits["train"])
tgt_itos = build_vocab(t for _, t in splits["train"])
src_stoi = {w: i for i, w in enumerate(src_itos)}
tgt_stoi = {w: i for i, w in enumerate(tgt_itos)}
print("source vocabulary:", len(src_itos), "| target vocabulary:", len(tgt_itos))
example = encode_batch([s for s, _ in splits["train"][:3]], src_stoi, add_eos=False)
print("a padded source batch", tuple(example.shape), "\n", example)

# %%
lengths = [len(s) for s, _ in splits["train"]]
fig, ax = plt.subplots(figsize=(6, 3))
ax.hist(lengths, bins=np.arange(4.5, 17.5), color="tab:blue", edgecolor="white")
ax.set(xlabel="source length (tokens)", ylabel="sentences", title="training sentence lengths")
plt.show()

# %% [markdown]
# ## 2. Teacher forcing: the decoder input is the target shifted right
#
# The decoder predicts the target one token at a time: $p(y_t \mid y_{<t}, x)$. During
# training we do not feed it its own guesses; we feed it the *true* previous tokens
# (**teacher forcing**), so that all positions are trained in parallel in one pass:
#
# | position | 0 | 1 | 2 | 3 |
# |---|---|---|---|---|
# | decoder input | `<bos>` | ka | kuta | dekhe |
# | target (what the loss asks for) | ka | kuta | dekhe | `<eos>` |
#
# The input is the target **shifted right by one**, with `<bos>` in front and the last
# token dropped; together with the causal mask of the decoder, position $t$ sees exactly
# $y_{<t}$ and never $y_t$ itself. (At inference time there is no target: the decoder
# eats its own outputs. The mismatch between the two regimes is *exposure bias*, the
# subject of notebook 06.)
#
# Implement `shift_right(targets, bos_id)`: `targets` is a `(B, T)` LongTensor (tokens,
# `<eos>`, then padding); return a new `(B, T)` tensor whose first column is `bos_id`
# and whose column $t > 0$ is `targets[:, t - 1]`. Same dtype and device; do not modify
# `targets`.

# %% [solution] id=shift_right
def shift_right(targets, bos_id):
    """Teacher-forcing decoder input: <bos> followed by targets[:, :-1]."""
    ### BEGIN SOLUTION
    bos = targets.new_full((targets.shape[0], 1), bos_id)  # (B, 1)
    return torch.cat([bos, targets[:, :-1]], dim=1)  # (B, T)
    ### END SOLUTION


# %%
targets = encode_batch([t for _, t in splits["train"][:2]], tgt_stoi, add_eos=True)
print("targets      ", targets[0].tolist())
print("decoder input", shift_right(targets, BOS)[0].tolist())

# %% [test] id=test_shift_right points=2
check = Check("test_shift_right")
tg = torch.tensor([[5, 6, 7, 2], [8, 2, 0, 0]])
want = torch.tensor([[1, 5, 6, 7], [1, 8, 2, 0]])
got = shift_right(tg, 1)
check.close(
    "example", got, want, atol=0, rtol=0,
    hint="Column 0 is bos_id and column t is targets[:, t - 1]; the last target token is dropped.",
    mistakes={"the input is shifted left (targets[:, 1:]) instead of right": [[6, 7, 2, 0], [2, 0, 0, 0]],
              "the first decoder input is not bos_id (no <bos>)": [[0, 5, 6, 7], [0, 8, 2, 0]],
              "the targets are not shifted at all: the decoder sees the token it must predict": tg},
)
check.equal("input_untouched", tg, torch.tensor([[5, 6, 7, 2], [8, 2, 0, 0]]),
            hint="Build a new tensor; do not write into targets.")
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(7)
for trial, (B, T, bos) in enumerate([(1, 1, 1), (3, 6, 1), (5, 9, 4), (2, 25, 11)]):
    tg = torch.randint(0, 30, (B, T), generator=gen)
    keep = tg.clone()
    want = torch.cat([torch.full((B, 1), bos), tg[:, :-1]], 1)
    got = shift_right(tg, bos)
    check.equal(
        f"hidden_{trial}", got, want, hint=f"B={B}, T={T}, bos_id={bos}.",
    )
    check.close(
        f"hidden_mistakes_{trial}", got.float(), want.float(), atol=0, rtol=0,
        mistakes={
            "the input is shifted left (targets[:, 1:]) instead of right": torch.cat(
                [tg[:, 1:], torch.zeros(B, 1, dtype=tg.dtype)], 1).float(),
            "the first decoder input is not bos_id (no <bos>)": torch.cat(
                [torch.zeros(B, 1, dtype=tg.dtype), tg[:, :-1]], 1).float(),
            "the targets are not shifted at all: the decoder sees the token it must predict": tg.float(),
        },
    )
    check.equal(f"hidden_untouched_{trial}", tg, keep)
check.true("hidden_dtype", shift_right(tg, 3).dtype == torch.long, "Keep the LongTensor dtype of targets.")
### END HIDDEN TESTS
print("shift_right: ok")

# %% [markdown]
# ## 3. The decoder block
#
# A decoder block has three sub-layers, each wrapped in a residual connection and a
# layer norm (Vaswani et al., 2017, §3.1):
#
# 1. **masked self-attention** over the target prefix — queries, keys and values all
#    come from the decoder, and a **causal mask** hides the future;
# 2. **cross-attention** (encoder–decoder attention) — the *queries* come from the
#    decoder, the *keys and values* from the encoder output (`memory`), so every target
#    position can look at every (non-padding) source position;
# 3. a position-wise **feed-forward** network, $\text{FFN}(x) = W_2\,\text{act}(W_1 x + b_1) + b_2$.
#
# With **post-norm** (the paper; `norm_first=False`) each sub-layer computes
# $x \leftarrow \text{LayerNorm}(x + \text{Sublayer}(x))$; with **pre-norm**
# (`norm_first=True`, easier to train deep) $x \leftarrow x + \text{Sublayer}(\text{LayerNorm}(x))$.
# Dropout is applied to each sub-layer output before the residual add (and inside the FFN
# after the activation).
#
# `TransformerDecoderBlock` is a drop-in replacement for
# `nn.TransformerDecoderLayer(batch_first=True)`, so it takes **PyTorch's mask
# arguments** (the convention table of notebook 02):
#
# | argument | shape | meaning |
# |---|---|---|
# | `tgt_mask` | `(T, T)` | self-attention `attn_mask`: bool **True = blocked**, or float added to the scores (`-inf` = blocked); the causal mask goes here |
# | `memory_mask` | `(T, S)` | cross-attention `attn_mask`, same convention (rarely used) |
# | `tgt_key_padding_mask` | `(B, T)` | bool, **True = padding** in the target |
# | `memory_key_padding_mask` | `(B, S)` | bool, **True = padding** in the source |
#
# The two attention modules are given (`self_attn`, `multihead_attn`, both
# `nn.MultiheadAttention(batch_first=True)`). Create `linear1` ($d_\text{model} \to d_\text{ff}$),
# `linear2` ($d_\text{ff} \to d_\text{model}$), `norm1`, `norm2`, `norm3`
# (`nn.LayerNorm(d_model)`, one per sub-layer, in that order) and dropouts, so that a
# `nn.TransformerDecoderLayer` state dict loads; `activation` is `"relu"` or `"gelu"`.
# `tgt_is_causal` / `memory_is_causal` are only hints in PyTorch; you may ignore them.

# %% [solution] id=decoder_block
class TransformerDecoderBlock(nn.Module):
    """Masked self-attention -> cross-attention -> FFN, each with residual + LayerNorm."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.multihead_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        self.norm_first = norm_first
        # Your part: linear1, linear2, norm1, norm2, norm3, the dropouts and the activation.
        ### BEGIN SOLUTION
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)  # inside the FFN
        self.dropout1 = nn.Dropout(dropout)  # after each sub-layer
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.activation = {"relu": F.relu, "gelu": F.gelu}[activation]
        ### END SOLUTION

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """tgt (B, T, E), memory (B, S, E) -> (B, T, E)."""
        ### BEGIN SOLUTION
        def self_block(x):  # queries, keys, values: the decoder itself, future masked
            out = self.self_attn(x, x, x, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask,
                                 need_weights=False)[0]
            return self.dropout1(out)

        def cross_block(x):  # queries from the decoder, keys and values from the encoder
            out = self.multihead_attn(x, memory, memory, attn_mask=memory_mask,
                                      key_padding_mask=memory_key_padding_mask, need_weights=False)[0]
            return self.dropout2(out)

        def ff_block(x):
            return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

        x = tgt
        if self.norm_first:  # pre-norm: x + Sublayer(LayerNorm(x))
            x = x + self_block(self.norm1(x))
            x = x + cross_block(self.norm2(x))
            x = x + ff_block(self.norm3(x))
        else:  # post-norm: LayerNorm(x + Sublayer(x))
            x = self.norm1(x + self_block(x))
            x = self.norm2(x + cross_block(x))
            x = self.norm3(x + ff_block(x))
        return x
        ### END SOLUTION


# %%
block = TransformerDecoderBlock(d_model=16, num_heads=4, d_ff=32, dropout=0.0)
x, mem = torch.randn(2, 5, 16), torch.randn(2, 7, 16)
causal = torch.ones(5, 5, dtype=torch.bool).triu(1)  # True above the diagonal = future = blocked
print("block output", tuple(block(x, mem, tgt_mask=causal).shape))
print("parameters:", sum(p.numel() for p in block.parameters()),
      "| nn.TransformerDecoderLayer:",
      sum(p.numel() for p in nn.TransformerDecoderLayer(16, 4, 32, batch_first=True).parameters()))

# %% [test] id=test_decoder_block points=2
check = Check("test_decoder_block")
gen = torch.Generator().manual_seed(11)
torch.manual_seed(0)  # the oracle's weights; they are copied into your block
ref = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
block = TransformerDecoderBlock(16, 4, 32, dropout=0.0).eval()
missing, unexpected = block.load_state_dict(ref.state_dict(), strict=False)
check.true("state_dict_loads", not missing and not unexpected,
           f"state dict keys differ from nn.TransformerDecoderLayer: missing {missing}, unexpected {unexpected}.")
x, mem = torch.randn(2, 5, 16, generator=gen), torch.randn(2, 7, 16, generator=gen)
causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
check.close(
    "post_norm_causal", block(x, mem, tgt_mask=causal), ref(x, mem, tgt_mask=causal), atol=1e-5,
    hint="Post-norm: x = norm(x + sublayer(x)) for self-attention, cross-attention, FFN, in that order.",
    mistakes={"the causal mask (tgt_mask) is not passed to the self-attention": ref(x, mem)},
)
check.close("no_mask", block(x, mem), ref(x, mem), atol=1e-5)
### BEGIN HIDDEN TESTS
def pre_as_post(layer, x, mem, tgt_mask):
    """norm_first ignored: the post-norm computation with the same weights."""
    layer.norm_first = False
    try:
        return layer(x, mem, tgt_mask=tgt_mask)
    finally:
        layer.norm_first = True


torch.manual_seed(1)
ref_pre = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=True).eval()
block_pre = TransformerDecoderBlock(16, 4, 32, dropout=0.0, norm_first=True).eval()
block_pre.load_state_dict(ref_pre.state_dict())
check.close("hidden_pre_norm", block_pre(x, mem, tgt_mask=causal), ref_pre(x, mem, tgt_mask=causal), atol=1e-5,
            hint="Pre-norm: x = x + sublayer(norm(x)).",
            mistakes={"norm_first is ignored (post-norm computed)": pre_as_post(ref_pre, x, mem, causal)})
### END HIDDEN TESTS
print("decoder block matches nn.TransformerDecoderLayer: ok")

# %% [test] id=test_decoder_block_masks points=3
# Hidden tests: both norm placements, relu and gelu, with a causal mask (bool and float),
# target padding and memory padding, against nn.TransformerDecoderLayer.
check = Check("test_decoder_block_masks")
block = TransformerDecoderBlock(8, 2, 16, dropout=0.0, norm_first=True).eval()
print("pre-norm block output", tuple(block(torch.zeros(1, 3, 8), torch.zeros(1, 4, 8)).shape))
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(12)


def cross_from_decoder(layer, x, tgt_mask):
    """A wrong post-norm layer whose cross-attention takes keys and values from the decoder."""
    x = layer.norm1(x + layer.self_attn(x, x, x, attn_mask=tgt_mask, need_weights=False)[0])
    x = layer.norm2(x + layer.multihead_attn(x, x, x, need_weights=False)[0])
    return layer.norm3(x + layer.linear2(F.relu(layer.linear1(x))))


torch.manual_seed(99)
ref = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
block = TransformerDecoderBlock(16, 4, 32, dropout=0.0).eval()
block.load_state_dict(ref.state_dict())
x6, mem6 = torch.randn(3, 6, 16, generator=gen), torch.randn(3, 6, 16, generator=gen)
causal6 = torch.ones(6, 6, dtype=torch.bool).triu(1)
check.close("hidden_cross_kv", block(x6, mem6, tgt_mask=causal6), ref(x6, mem6, tgt_mask=causal6), atol=1e-5,
            mistakes={"cross-attention takes its keys and values from the decoder instead of the encoder memory":
                      cross_from_decoder(ref, x6, causal6)})
configs = [(16, 4, 32, False, "relu", 2, 5, 7), (24, 3, 40, True, "relu", 3, 6, 4),
           (8, 2, 16, False, "gelu", 4, 4, 9), (32, 8, 64, True, "gelu", 2, 9, 3)]
for trial, (d, h, ff, nf, act, B, T, S) in enumerate(configs):
    torch.manual_seed(100 + trial)
    ref = nn.TransformerDecoderLayer(d, h, ff, dropout=0.0, activation=act, batch_first=True, norm_first=nf).eval()
    block = TransformerDecoderBlock(d, h, ff, dropout=0.0, activation=act, norm_first=nf).eval()
    block.load_state_dict(ref.state_dict())
    x, mem = torch.randn(B, T, d, generator=gen), torch.randn(B, S, d, generator=gen)
    tgt_len = torch.randint(1, T + 1, (B,), generator=gen)
    tgt_len[0] = T
    src_len = torch.randint(1, S + 1, (B,), generator=gen)
    src_len[-1] = S
    tgt_pad = torch.arange(T)[None, :] >= tgt_len[:, None]  # (B, T) True = padding
    mem_pad = torch.arange(S)[None, :] >= src_len[:, None]  # (B, S) True = padding
    causal_bool = torch.ones(T, T, dtype=torch.bool).triu(1)
    causal_float = nn.Transformer.generate_square_subsequent_mask(T)
    for mask_name, tgt_mask in (("bool", causal_bool), ("float", causal_float)):
        kwargs = dict(tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=mem_pad)
        with warnings.catch_warnings():  # a float mask with a bool padding mask is deprecated but supported
            warnings.simplefilter("ignore")
            want = ref(x, mem, **kwargs)
            got = block(x, mem, **kwargs)
            mistakes = {
                "the memory padding mask (memory_key_padding_mask) is ignored": ref(
                    x, mem, tgt_mask=tgt_mask, tgt_key_padding_mask=tgt_pad),
                "the target padding mask (tgt_key_padding_mask) is ignored": ref(
                    x, mem, tgt_mask=tgt_mask, memory_key_padding_mask=mem_pad),
                "the causal mask (tgt_mask) is ignored": ref(
                    x, mem, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=mem_pad),
            }
        check.close(
            f"hidden_{trial}_{mask_name}", got, want, atol=1e-5,
            hint=f"d_model={d}, heads={h}, norm_first={nf}, activation={act}, {mask_name} causal mask, "
                 "with target and memory padding masks.",
            mistakes=mistakes,
        )
    # a memory attention mask (T, S) too
    mem_mask = torch.rand(T, S, generator=gen) > 0.7
    mem_mask[:, 0] = False
    check.close(f"hidden_{trial}_memory_mask", block(x, mem, tgt_mask=causal_bool, memory_mask=mem_mask),
                ref(x, mem, tgt_mask=causal_bool, memory_mask=mem_mask), atol=1e-5,
                hint="memory_mask is the cross-attention attn_mask.")
# dropout is active in train mode and off in eval mode
torch.manual_seed(3)
block = TransformerDecoderBlock(8, 2, 16, dropout=0.5).train()
x, mem = torch.randn(2, 3, 8, generator=gen), torch.randn(2, 4, 8, generator=gen)
check.true("hidden_dropout_train", not torch.allclose(block(x, mem), block(x, mem)),
           "With dropout=0.5 in train mode two calls should differ: apply the dropouts.")
block.eval()
check.true("hidden_dropout_eval", torch.allclose(block(x, mem), block(x, mem)),
           "In eval mode the block must be deterministic.")
### END HIDDEN TESTS
print("masks and norm placements: (checked by hidden tests)")

# %% [markdown]
# ## 4. The whole model
#
# The encoder–decoder Transformer (the paper's Figure 1):
#
# $$\text{memory} = \text{Encoder}\big(E_\text{src}[x]\sqrt{d_\text{model}} + \text{PE}\big),\qquad
# \text{logits} = \text{Decoder}\big(E_\text{tgt}[y_\text{in}]\sqrt{d_\text{model}} + \text{PE},\ \text{memory}\big)\,W_o^\top + b_o$$
#
# * Token embeddings are multiplied by $\sqrt{d_\text{model}}$ (§3.4) and the sinusoidal
#   position encoding is added (§3.5):
#   $\text{PE}_{(pos, 2i)} = \sin(pos / 10000^{2i/d_\text{model}})$,
#   $\text{PE}_{(pos, 2i+1)} = \cos(pos / 10000^{2i/d_\text{model}})$; then dropout.
# * The encoder sees the source padding mask (`src == pad_id`); the decoder gets a
#   **causal** mask, its own padding mask, and the **source padding mask for the
#   cross-attention** (`memory_key_padding_mask`): padding in the source must receive no
#   attention from the target.
# * The output projection (`generator`) maps each decoder vector to vocabulary logits;
#   the softmax over the vocabulary is left to the loss.
# * **Weight tying** (§3.4, Press & Wolf 2017): with `tie_weights=True` the output
#   projection *is* the target embedding matrix (`generator.weight = tgt_embed.weight`);
#   with `share_embeddings=True` the source and target embeddings are one matrix too
#   (only possible with a shared vocabulary: raise `ValueError` if the sizes differ).
#
# The skeleton creates the layers (their names are part of the contract, so that the
# hidden tests can load `nn.Transformer` weights into your model). You write:
#
# * in `__init__`: the sinusoidal table as a **non-persistent buffer**
#   `self.pe` of shape `(max_len, d_model)` (`register_buffer(..., persistent=False)`: it
#   moves with `.to(device)` but is not a parameter and not in the state dict), and the
#   optional weight sharing;
# * `encode(src) -> memory (B, S, E)`;
# * `decode(tgt_in, memory, memory_key_padding_mask=None) -> logits (B, T, V)`, which
#   builds the causal mask (and the target padding mask, `tgt_in == pad_id`) itself;
# * `forward(src, tgt_in) -> logits (B, T, V)`.
#
# The decoding functions of sections 8–10 use only `model.encode`, `model.decode` and
# `model.pad_id`, so they work with any model that has those.

# %% [solution] id=seq2seq_transformer
class Seq2SeqTransformer(nn.Module):
    """Encoder-decoder Transformer: embeddings * sqrt(d) + PE, encoder, decoder, output projection."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_encoder_layers=6,
                 num_decoder_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0, norm_first=False,
                 tie_weights=False, share_embeddings=False):
        super().__init__()
        self.d_model, self.pad_id = d_model, pad_id
        self.src_embed = nn.Embedding(src_vocab_size, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d_model)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout, batch_first=True,
                                           norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, num_encoder_layers, norm=nn.LayerNorm(d_model),
                                             enable_nested_tensor=False)
        self.decoder_layers = nn.ModuleList(
            TransformerDecoderBlock(d_model, num_heads, d_ff, dropout, norm_first=norm_first)
            for _ in range(num_decoder_layers)
        )
        self.decoder_norm = nn.LayerNorm(d_model)
        self.generator = nn.Linear(d_model, tgt_vocab_size)
        # Your part: the buffer self.pe (max_len, d_model), then the optional weight sharing.
        ### BEGIN SOLUTION
        position = torch.arange(max_len, dtype=torch.float32)[:, None]  # (max_len, 1)
        inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                             * (-math.log(10000.0) / d_model))  # (d_model/2,) = 1 / 10000^(2i/d)
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * inv_freq)  # even dimensions
        pe[:, 1::2] = torch.cos(position * inv_freq)  # odd dimensions
        self.register_buffer("pe", pe, persistent=False)
        if share_embeddings:
            if src_vocab_size != tgt_vocab_size:
                raise ValueError(f"share_embeddings needs one vocabulary: {src_vocab_size} != {tgt_vocab_size}")
            self.src_embed.weight = self.tgt_embed.weight
        if tie_weights:
            self.generator.weight = self.tgt_embed.weight  # (V, E) serves both ways
        ### END SOLUTION

    def encode(self, src):
        """src (B, S) ids -> memory (B, S, E)."""
        ### BEGIN SOLUTION
        x = self.src_embed(src) * math.sqrt(self.d_model) + self.pe[: src.shape[1]]  # (B, S, E)
        return self.encoder(self.dropout(x), src_key_padding_mask=src == self.pad_id)
        ### END SOLUTION

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        """tgt_in (B, T) ids, memory (B, S, E) -> logits (B, T, V)."""
        ### BEGIN SOLUTION
        T = tgt_in.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool, device=tgt_in.device).triu(1)  # True = future = blocked
        y = self.tgt_embed(tgt_in) * math.sqrt(self.d_model) + self.pe[:T]  # (B, T, E)
        y = self.dropout(y)
        for block in self.decoder_layers:
            y = block(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == self.pad_id,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.generator(self.decoder_norm(y))  # (B, T, V)
        ### END SOLUTION

    def forward(self, src, tgt_in):
        """src (B, S), tgt_in (B, T) -> logits (B, T, V)."""
        ### BEGIN SOLUTION
        return self.decode(tgt_in, self.encode(src), memory_key_padding_mask=src == self.pad_id)
        ### END SOLUTION


# %%
toy = Seq2SeqTransformer(11, 13, d_model=16, num_heads=2, num_encoder_layers=1, num_decoder_layers=1,
                         d_ff=32, dropout=0.0, max_len=20).eval()
src = torch.tensor([[4, 5, 6, 0, 0], [7, 8, 9, 10, 4]])  # (B=2, S=5), 0 = padding
tgt_in = torch.tensor([[1, 5, 6, 7], [1, 8, 9, 0]])  # (B=2, T=4)
memory = toy.encode(src)
print("memory", tuple(memory.shape), "| logits", tuple(toy.decode(tgt_in, memory, src == 0).shape),
      "| forward", tuple(toy(src, tgt_in).shape), "| pe buffer", tuple(toy.pe.shape))

# %% [test] id=test_seq2seq_properties points=2
check = Check("test_seq2seq_properties")
torch.manual_seed(0)
model = Seq2SeqTransformer(11, 13, d_model=16, num_heads=2, num_encoder_layers=1, num_decoder_layers=2,
                           d_ff=32, dropout=0.0, max_len=20).eval()
src = torch.tensor([[4, 5, 6, 0, 0], [7, 8, 9, 10, 4]])
tgt_in = torch.tensor([[1, 5, 6, 7], [1, 8, 9, 0]])
logits = model(src, tgt_in)
check.equal("forward_shape", torch.tensor(logits.shape), torch.tensor([2, 4, 13]))
check.equal("encode_shape", torch.tensor(model.encode(src).shape), torch.tensor([2, 5, 16]))
check.true("pe_is_buffer", "pe" in dict(model.named_buffers()) and "pe" not in model.state_dict()
           and not any(n == "pe" for n, _ in model.named_parameters()),
           "self.pe must be a non-persistent buffer: register_buffer('pe', table, persistent=False).")
future = tgt_in.clone()
future[:, 2:] = torch.tensor([[3, 3], [12, 11]])
check.true("causal", torch.allclose(model(src, future)[:, :2], logits[:, :2], atol=1e-5),
           "Changing target tokens at positions >= 2 changed the logits at positions 0-1: "
           "the decoder sees the future (causal mask missing in the self-attention).")
more_pad = F.pad(src, (0, 3), value=0)  # three extra padding columns
check.true("source_padding", torch.allclose(model(more_pad, tgt_in), logits, atol=1e-5),
           "Extra padding in the source changed the logits: mask the source padding in the encoder "
           "(src_key_padding_mask) and in the cross-attention (memory_key_padding_mask).")
### BEGIN HIDDEN TESTS
for trial in range(3):
    g = torch.Generator().manual_seed(20 + trial)
    B, S, T = 3, 6 + trial, 5 + trial
    src = torch.randint(4, 11, (B, S), generator=g)
    src[1, S - 2:] = 0
    tgt_in = torch.randint(4, 13, (B, T), generator=g)
    tgt_in[:, 0] = 1
    base = model(src, tgt_in)
    changed = tgt_in.clone()
    changed[:, T // 2:] = torch.randint(4, 13, (B, T - T // 2), generator=g)
    check.true(f"hidden_causal_{trial}", torch.allclose(model(src, changed)[:, : T // 2], base[:, : T // 2], atol=1e-5),
               "Logits depend on future target tokens: build a causal mask in decode.")
    check.true(f"hidden_padding_{trial}", torch.allclose(model(F.pad(src, (0, 2)), tgt_in), base, atol=1e-5),
               "Logits change with the amount of source padding: mask the source padding.")
    padded_tgt = F.pad(tgt_in, (0, 2))
    check.true(f"hidden_tgt_padding_{trial}", torch.allclose(model(src, padded_tgt)[:, :T], base, atol=1e-5),
               "Padding at the end of the decoder input changed the logits of the real positions.")
### END HIDDEN TESTS
print("shapes, causality and padding: ok")

# %% [test] id=test_seq2seq_oracle points=3
# Hidden tests: with nn.Transformer weights copied into your model (and embeddings and output
# projection set from a seed), the logits equal generator(nn.Transformer(embedded src, embedded tgt))
# for post-norm and pre-norm, with causal and padding masks; decode on growing prefixes
# (incremental shapes) gives the first t positions of the full decode.
check = Check("test_seq2seq_oracle")
model = Seq2SeqTransformer(7, 9, d_model=8, num_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=16,
                           dropout=0.0, max_len=16, norm_first=True).eval()
print("pre-norm model logits", tuple(model(torch.tensor([[4, 5, 0]]), torch.tensor([[1, 6]])).shape))
### BEGIN HIDDEN TESTS
def sinusoid_table(n, d):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)
    table = torch.zeros(n, d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos / 10000 ** (i / d))
    table[:, 1::2] = torch.cos(pos / 10000 ** (i / d))
    return table.float()


for trial, (d, h, n_enc, n_dec, ff, nf, Vs, Vt) in enumerate(
    [(16, 2, 1, 2, 32, False, 11, 13), (24, 4, 2, 1, 48, True, 9, 15), (32, 4, 2, 2, 64, False, 20, 20)]
):
    g = torch.Generator().manual_seed(40 + trial)
    torch.manual_seed(300 + trial)
    with warnings.catch_warnings():  # nn.Transformer warns that pre-norm disables nested tensors
        warnings.simplefilter("ignore")
        ref = nn.Transformer(d, h, n_enc, n_dec, ff, dropout=0.0, batch_first=True, norm_first=nf).eval()
    model = Seq2SeqTransformer(Vs, Vt, d_model=d, num_heads=h, num_encoder_layers=n_enc,
                               num_decoder_layers=n_dec, d_ff=ff, dropout=0.0, max_len=64,
                               norm_first=nf).eval()
    E_src = torch.randn(Vs, d, generator=g) * d ** -0.5
    E_tgt = torch.randn(Vt, d, generator=g) * d ** -0.5
    W_out, b_out = torch.randn(Vt, d, generator=g) * 0.3, torch.randn(Vt, generator=g) * 0.1
    new = {k.replace("decoder.layers.", "decoder_layers.").replace("decoder.norm.", "decoder_norm."): v
           for k, v in ref.state_dict().items()}
    new.update({"src_embed.weight": E_src, "tgt_embed.weight": E_tgt, "generator.weight": W_out,
                "generator.bias": b_out})
    state = model.state_dict()
    unknown = sorted(set(new) - set(state))
    check.true(f"hidden_names_{trial}", not unknown,
               f"the model lacks these state-dict keys (keep the skeleton's layer names): {unknown[:4]}")
    state.update(new)
    model.load_state_dict(state)
    B, S, T = 3, 7, 6
    src = torch.randint(4, Vs, (B, S), generator=g)
    src[0, 5:] = 0
    src[2, 3:] = 0
    tgt_in = torch.randint(4, Vt, (B, T), generator=g)
    tgt_in[:, 0] = 1
    tgt_in[2, 4:] = 0
    real = tgt_in != 0  # compare the real (non-padding) target positions
    pe = sinusoid_table(64, d)

    def expected(scale=True, causal=True, memory_mask=True, positions=True):
        k = math.sqrt(d) if scale else 1.0
        xs = E_src[src] * k + (pe[:S] if positions else 0)
        xt = E_tgt[tgt_in] * k + (pe[:T] if positions else 0)
        out = ref(xs, xt, tgt_mask=torch.ones(T, T, dtype=torch.bool).triu(1) if causal else None,
                  src_key_padding_mask=src == 0, tgt_key_padding_mask=tgt_in == 0,
                  memory_key_padding_mask=(src == 0) if memory_mask else None)
        return (out @ W_out.T + b_out)[real]

    # gradients stay enabled, so that neither model takes a fast path (nested tensors)
    got = model(src, tgt_in)[real]
    check.close(
        f"hidden_logits_{trial}", got, expected(), atol=1e-4,
        hint=f"d_model={d}, heads={h}, norm_first={nf}: embeddings * sqrt(d_model) + PE, encoder with the "
             "source padding mask, decoder with causal + padding masks, decoder_norm, generator.",
        mistakes={
            "the embeddings are not multiplied by sqrt(d_model)": expected(scale=False),
            "the decoder self-attention has no causal mask": expected(causal=False),
            "the cross-attention ignores the source padding (memory_key_padding_mask)": expected(memory_mask=False),
            "no positional encoding is added": expected(positions=False),
        },
    )
    memory = model.encode(src)
    full = model.decode(tgt_in, memory, src == 0)
    for t in (1, 3, T):
        part = model.decode(tgt_in[:, :t], memory, src == 0)
        check.equal(f"hidden_incremental_shape_{trial}_{t}", torch.tensor(part.shape), torch.tensor([B, t, Vt]))
        check.true(f"hidden_incremental_{trial}_{t}", torch.allclose(part[real[:, :t]], full[:, :t][real[:, :t]], atol=1e-5),
                   "decode on a prefix of length t must give the first t positions of the full decode.")
### END HIDDEN TESTS
print("model against nn.Transformer: (checked by hidden tests)")

# %% [markdown]
# ## 5. How big is the base model?
#
# The paper's base configuration (Table 3): $N = 6$ layers in each stack,
# $d_\text{model} = 512$, $d_\text{ff} = 2048$, $h = 8$ heads ($d_k = d_v = 64$),
# $P_\text{drop} = 0.1$, label smoothing $\epsilon_{ls} = 0.1$, 100k training steps of
# about 25,000 source + 25,000 target tokens, Adam with $\beta_2 = 0.98$ and 4,000 warm-up
# steps. English–German used a shared byte-pair vocabulary of about 37,000 tokens, with
# one matrix for both embeddings and the output projection. Table 3 reports **65M**
# parameters. Count ours, on the `meta` device (shapes only, no memory), and compare with
# `nn.Transformer`, which has the same stacks but no embeddings or output layer.

# %%
VOCAB, BASE = 37_000, dict(d_model=512, num_heads=8, num_encoder_layers=6, num_decoder_layers=6, d_ff=2048)


def n_params(module):
    """Number of distinct parameters (tied matrices count once)."""
    return sum(p.numel() for p in module.parameters())


with torch.device("meta"):
    base_tied = Seq2SeqTransformer(VOCAB, VOCAB, **BASE, tie_weights=True, share_embeddings=True)
    base_untied = Seq2SeqTransformer(VOCAB, VOCAB, **BASE)
    reference = nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                               dim_feedforward=2048, batch_first=True)
stacks = n_params(reference)
enc_layer, dec_layer = n_params(reference.encoder.layers[0]), n_params(reference.decoder.layers[0])
print(f"one encoder layer        {enc_layer:>12,}   (attention 4·512²+4·512, FFN 2·512·2048+2048+512, 2 norms)")
print(f"one decoder layer        {dec_layer:>12,}   (one more attention and one more norm)")
print(f"nn.Transformer stacks    {stacks:>12,}")
print(f"one 37k × 512 embedding  {VOCAB * 512:>12,}")
print(f"ours, all tied           {n_params(base_tied):>12,}   = stacks + embedding + output bias "
      f"({stacks + VOCAB * 512 + VOCAB:,})")
print(f"ours, nothing tied       {n_params(base_untied):>12,}   = stacks + 3 matrices + output bias")
print(f"feed-forward share of the stacks: {12 * (2 * 512 * 2048 + 2048 + 512) / stacks:.1%}")
assert n_params(base_tied) == stacks + VOCAB * 512 + VOCAB

# %% [markdown]
# With everything tied the model has **63.1M** parameters: 44.1M in the two stacks (two
# thirds of it in the feed-forward layers) and 18.9M in the single embedding matrix.
# The paper's 65M is about 2M more, and the paper does not say how it counted. 2M is
# about 3,700 extra rows of a 512-wide embedding, so a vocabulary of about 41k rather
# than "about 37,000" would explain it; an untied output projection would add 18.9M, far
# too much. Without any tying the same model has 82M: tying saves almost a quarter of
# the parameters. (`nn.Transformer` also has a final LayerNorm on each stack, 2,048
# parameters that the post-norm paper model does not need; ours mirrors it.)
#
# `nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward,
# dropout, activation, batch_first, norm_first)` is the stacks only: you bring the
# embeddings, positions, masks (`tgt_mask`, `src_key_padding_mask`,
# `tgt_key_padding_mask`, `memory_key_padding_mask`) and the output layer, exactly what
# `Seq2SeqTransformer` adds.

# %% [test] id=test_param_count points=1
check = Check("test_param_count")
ref = nn.Transformer(16, 2, 2, 1, 24, batch_first=True)
tied = Seq2SeqTransformer(40, 40, d_model=16, num_heads=2, num_encoder_layers=2, num_decoder_layers=1,
                          d_ff=24, tie_weights=True, share_embeddings=True)
check.equal("tied_count", torch.tensor(n_params(tied)), torch.tensor(n_params(ref) + 40 * 16 + 40),
            hint="With tie_weights and share_embeddings there is one 40x16 matrix plus the output bias.")
check.true("generator_is_embedding", tied.generator.weight is tied.tgt_embed.weight,
           "tie_weights: make generator.weight the same Parameter as tgt_embed.weight.")
### BEGIN HIDDEN TESTS
untied = Seq2SeqTransformer(30, 40, d_model=16, num_heads=2, num_encoder_layers=2, num_decoder_layers=1, d_ff=24)
check.equal("hidden_untied_count", torch.tensor(n_params(untied)),
            torch.tensor(n_params(ref) + 30 * 16 + 40 * 16 + 40 * 16 + 40))
only_tie = Seq2SeqTransformer(30, 40, d_model=16, num_heads=2, num_encoder_layers=2, num_decoder_layers=1,
                              d_ff=24, tie_weights=True)
check.equal("hidden_tie_only_count", torch.tensor(n_params(only_tie)),
            torch.tensor(n_params(ref) + 30 * 16 + 40 * 16 + 40))
check.true("hidden_shared_src", tied.src_embed.weight is tied.tgt_embed.weight,
           "share_embeddings: make src_embed.weight the same Parameter as tgt_embed.weight.")
check.true("hidden_untied_separate", untied.generator.weight is not untied.tgt_embed.weight,
           "Without tie_weights the output projection has its own weights.")
check.raises("hidden_share_needs_one_vocab", ValueError,
             lambda: Seq2SeqTransformer(30, 40, d_model=16, num_heads=2, num_encoder_layers=1,
                                        num_decoder_layers=1, d_ff=24, share_embeddings=True))
### END HIDDEN TESTS
print("parameter counts and weight tying: ok")

# %% [markdown]
# ## 6. The loss: cross-entropy over the vocabulary, padding ignored, labels smoothed
#
# The decoder outputs logits over the target vocabulary at every position; the loss is
# the mean cross-entropy over the **real** target tokens. Padding positions must not count:
# they are not words, and counting them rewards the model for predicting `<pad>` after
# `<eos>`. `ignore_index=pad_id` removes them from the sum *and* from the count.
#
# **Label smoothing** (§5.4, $\epsilon_{ls} = 0.1$) trains towards the target distribution
# $(1-\epsilon)\,\text{onehot}(y) + \epsilon / V$ instead of the one-hot: the model learns
# to be less sure, which "hurts perplexity, but improves accuracy and BLEU". Per token,
# $\ell = (1-\epsilon)\,(-\log p_y) + \epsilon \cdot \frac{1}{V}\sum_v (-\log p_v)$.
#
# Implement `seq2seq_loss(logits, targets, pad_id, label_smoothing=0.0)`: `logits`
# `(B, T, V)`, `targets` `(B, T)`; return the scalar mean over non-padding positions,
# equal to `F.cross_entropy(..., ignore_index=pad_id, label_smoothing=...)`.

# %% [solution] id=seq2seq_loss
def seq2seq_loss(logits, targets, pad_id, label_smoothing=0.0):
    """Token-level cross-entropy, padding ignored, optional label smoothing; a scalar."""
    ### BEGIN SOLUTION
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),  # (B*T, V)
                           targets.reshape(-1),  # (B*T,)
                           ignore_index=pad_id, label_smoothing=label_smoothing)
    ### END SOLUTION


# %%
gen = torch.Generator().manual_seed(0)
toy_logits, toy_targets = torch.randn(2, 4, 6, generator=gen), torch.tensor([[4, 5, 2, 0], [3, 2, 0, 0]])
print("loss", round(seq2seq_loss(toy_logits, toy_targets, PAD).item(), 4),
      "| smoothed", round(seq2seq_loss(toy_logits, toy_targets, PAD, 0.1).item(), 4))

# %% [test] id=test_loss points=2
check = Check("test_loss")
gen = torch.Generator().manual_seed(5)
lg, tg = torch.randn(2, 4, 6, generator=gen), torch.tensor([[4, 5, 2, 0], [3, 2, 0, 0]])


def ce(lg, tg, pad, ls=0.0, ignore=True):
    return F.cross_entropy(lg.reshape(-1, lg.shape[-1]), tg.reshape(-1),
                           ignore_index=pad if ignore else -100, label_smoothing=ls)


check.close("plain", seq2seq_loss(lg, tg, 0), ce(lg, tg, 0), atol=1e-6,
            mistakes={"padding positions are counted in the loss": ce(lg, tg, 0, ignore=False)})
check.close("smoothed", seq2seq_loss(lg, tg, 0, 0.1), ce(lg, tg, 0, 0.1), atol=1e-6,
            mistakes={"label_smoothing is ignored": ce(lg, tg, 0)})
### BEGIN HIDDEN TESTS
for trial, (B, T, V, pad, ls) in enumerate([(3, 5, 7, 0, 0.0), (2, 6, 11, 3, 0.2), (4, 3, 5, 1, 0.05)]):
    lg = torch.randn(B, T, V, generator=gen, dtype=torch.float64)
    tg = torch.randint(0, V, (B, T), generator=gen)
    tg[0, -2:] = pad
    check.close(f"hidden_{trial}", seq2seq_loss(lg, tg, pad, ls), ce(lg, tg, pad, ls), atol=1e-10,
                hint=f"B={B}, T={T}, V={V}, pad_id={pad}, label_smoothing={ls}.",
                mistakes={"padding positions are counted in the loss": ce(lg, tg, pad, ls, ignore=False),
                          "label_smoothing is ignored": ce(lg, tg, pad)})
lg = torch.randn(2, 3, 4, generator=gen, requires_grad=True)
seq2seq_loss(lg, torch.tensor([[1, 2, 0], [3, 0, 0]]), 0, 0.1).backward()
check.true("hidden_grad", lg.grad is not None and bool((lg.grad[0, 2] == 0).all()),
           "The loss must be differentiable and padding positions must get zero gradient.")
### END HIDDEN TESTS
print("loss: ok")

# %% [markdown]
# ## 7. The warm-up schedule
#
# The paper (§5.3) changes the learning rate every step:
#
# $$\text{lrate} = d_\text{model}^{-0.5}\cdot\min\big(\text{step}^{-0.5},\ \text{step}\cdot\text{warmup}^{-1.5}\big)$$
#
# a linear ramp for `warmup` steps, then decay as $1/\sqrt{\text{step}}$. The ramp matters
# for post-norm Transformers: at the start, Adam's second-moment estimates are poor and
# large steps blow the model up. The factor $d_\text{model}^{-0.5}$ makes wider models take
# smaller steps. Implement `noam_lr(step, d_model, warmup)` for `step >= 1` (a Python float).

# %% [solution] id=noam_lr
def noam_lr(step, d_model, warmup):
    """The Transformer learning rate at a step (counted from 1)."""
    ### BEGIN SOLUTION
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
    ### END SOLUTION


# %%
steps = np.unique(np.geomspace(1, 20_000, 400).astype(int))
fig, ax = plt.subplots(figsize=(6, 3.2))
for d, w in ((512, 4000), (512, 8000), (256, 4000), (64, 200)):
    ax.plot(steps, [noam_lr(int(s), d, w) for s in steps], label=f"d_model={d}, warmup={w}")
ax.set(xlabel="step", ylabel="learning rate", title="warm-up then 1/√step decay", yscale="log")
ax.legend()
plt.show()
print("peak for the base model:", round(noam_lr(4000, 512, 4000), 6), "at step 4000")

# %% [test] id=test_noam points=1
check = Check("test_noam")
points = [1, 10, 100, 4000, 4001, 20000]


def noam_ref(s, d, w, dfac=True, wexp=-1.5):
    return (d ** -0.5 if dfac else 1.0) * min(s ** -0.5, s * w ** wexp)


check.close("base", [noam_lr(s, 512, 4000) for s in points], [noam_ref(s, 512, 4000) for s in points],
            atol=1e-9, rtol=1e-6,
            mistakes={"the d_model^-0.5 factor is missing": [noam_ref(s, 512, 4000, dfac=False) for s in points],
                      "warmup^-0.5 instead of warmup^-1.5": [noam_ref(s, 512, 4000, wexp=-0.5) for s in points]})
### BEGIN HIDDEN TESTS
for trial, (d, w) in enumerate([(64, 200), (1024, 8000), (128, 1)]):
    pts = [1, 2, w, w + 1, 5 * w, 10 * w + 3]
    check.close(f"hidden_{trial}", [noam_lr(s, d, w) for s in pts], [noam_ref(s, d, w) for s in pts],
                atol=1e-9, rtol=1e-6, hint=f"d_model={d}, warmup={w}.",
                mistakes={"the d_model^-0.5 factor is missing": [noam_ref(s, d, w, dfac=False) for s in pts]})
### END HIDDEN TESTS
print("noam_lr: ok")

# %% [markdown]
# ## 8. Training
#
# A small configuration for the toy task: $d_\text{model} = 64$, 4 heads, 2 encoder and 2
# decoder layers, $d_\text{ff} = 128$, dropout 0.1, label smoothing 0.1, Adam
# ($\beta = (0.9, 0.98)$, $\epsilon = 10^{-9}$) with the warm-up schedule over 200 steps.
# Because $d_\text{model}^{-0.5}$ is large for a 64-wide model, the schedule is halved
# (many implementations multiply it by such a factor): its peak is then $4.4 \cdot 10^{-3}$.
# Two details from the paper's code matter at this scale: embeddings start with standard deviation
# $d_\text{model}^{-0.5}$ (so that after the $\times\sqrt{d_\text{model}}$ they are of the
# same size as the position encoding instead of drowning it), and batches group sentences
# of similar length (less padding, faster steps).

# %%
def make_batches(pairs, batch_size, rng):
    """Shuffled batches of similar-length pairs: (src (B, S), tgt (B, T) with EOS) tensors."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    batches = []
    for start in range(0, len(order), batch_size * 16):  # sort within chunks of 16 batches
        chunk = sorted(order[start: start + batch_size * 16], key=lambda i: len(pairs[i][0]))
        batches += [chunk[b: b + batch_size] for b in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return [(encode_batch([pairs[i][0] for i in b], src_stoi, add_eos=False),
             encode_batch([pairs[i][1] for i in b], tgt_stoi, add_eos=True)) for b in batches]


CONFIG = dict(src_vocab_size=len(src_itos), tgt_vocab_size=len(tgt_itos), d_model=64, num_heads=4,
              num_encoder_layers=2, num_decoder_layers=2, d_ff=128, dropout=0.1, max_len=64, pad_id=PAD)
EPOCHS, BATCH_SIZE, WARMUP, LR_SCALE = scaled(15, 1), 64, 200, 0.5

seed_everything(0)
model = Seq2SeqTransformer(**CONFIG).to(device)
for emb in (model.src_embed, model.tgt_embed):
    nn.init.normal_(emb.weight, std=CONFIG["d_model"] ** -0.5)
optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
# LambdaLR multiplies the base lr (1.0) by the schedule; it counts steps from 0
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: LR_SCALE * noam_lr(s + 1, CONFIG["d_model"], WARMUP))
print("trainable parameters:", n_params(model))

# %%
# NBVAL_IGNORE_OUTPUT
history, batch_rng, start = [], random.Random(0), time.time()
for epoch in range(EPOCHS):
    model.train()
    batches = make_batches(splits["train"], BATCH_SIZE, batch_rng)
    for src, tgt in tqdm(batches, desc=f"epoch {epoch + 1}/{EPOCHS}", leave=False, mininterval=1.0):
        src, tgt = src.to(device), tgt.to(device)
        logits = model(src, shift_right(tgt, BOS))  # teacher forcing
        loss = seq2seq_loss(logits, tgt, PAD, label_smoothing=0.1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        history.append(loss.item())
    print(f"epoch {epoch + 1:2d}  loss {np.mean(history[-len(batches):]):.3f}  "
          f"lr {scheduler.get_last_lr()[0]:.5f}  ({time.time() - start:.0f} s)")
model.eval()
assert GRADING or history[-1] < 1.0, "the training loss did not come down"

# %%
# NBVAL_IGNORE_OUTPUT
# With label smoothing the target distribution is q = 0.9 one-hot + 0.1 / V: the loss cannot
# go below its entropy H(q), reached when the model predicts q exactly.
n_vocab, eps = len(tgt_itos), 0.1
floor = (-(1 - eps + eps / n_vocab) * math.log(1 - eps + eps / n_vocab)
         - (n_vocab - 1) * (eps / n_vocab) * math.log(eps / n_vocab))
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(history, lw=0.8, label="training loss")
ax.axhline(floor, color="grey", ls="--", lw=1, label=f"floor H(q) = {floor:.3f}")
ax.set(xlabel="step", ylabel="loss (label-smoothed)", title="training loss")
ax.legend()
plt.show()
print(f"last 50 steps: {np.mean(history[-50:]):.3f}, floor {floor:.3f}")

# %% [markdown]
# ## 9. Greedy decoding
#
# At inference time there is no target to shift. The decoder starts from `<bos>`, predicts
# the most likely next token, appends it, and repeats: **greedy decoding**. Each step
# reruns `decode` on the whole prefix (notebook 08 makes this cheaper with a KV cache);
# the encoder runs once.
#
# Implement `greedy_decode(model, src, max_len, bos_id, eos_id, pad_id=0)`:
#
# * `src` is `(B, S)`; encode once (memory padding mask `src == model.pad_id`), then
#   generate at most `max_len` tokens per sentence with `model.decode`;
# * return a LongTensor `(B, T)` of the generated tokens **without** `<bos>`, `T <= max_len`;
# * a sentence that has produced `eos_id` is finished: keep its `<eos>` and fill every later
#   position with `pad_id`, whatever the model predicts there;
# * you may stop as soon as every sentence is finished (then `T < max_len`).
#
# Run it under `torch.no_grad()` (a decorator is fine).

# %% [solution] id=greedy_decode
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id=0):
    """Most likely token at every step; (B, T) tokens without <bos>, padded after <eos>."""
    ### BEGIN SOLUTION
    src_pad = src == model.pad_id  # (B, S)
    memory = model.encode(src)  # (B, S, E), once
    B = src.shape[0]
    ys = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1): <bos>
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        next_tok = model.decode(ys, memory, src_pad)[:, -1].argmax(-1)  # (B,)
        next_tok = next_tok.masked_fill(done, pad_id)  # finished rows only get padding
        ys = torch.cat([ys, next_tok[:, None]], dim=1)  # (B, t + 1)
        done |= next_tok == eos_id
        if done.all():
            break
    return ys[:, 1:]  # drop <bos>
    ### END SOLUTION


# %%
src = encode_batch([s for s, _ in splits["test"][:3]], src_stoi, add_eos=False).to(device)
out = greedy_decode(model, src, max_len=src.shape[1] + 5, bos_id=BOS, eos_id=EOS)
print("output", tuple(out.shape))

# %% [test] id=test_greedy points=2
class CountingModel(nn.Module):
    """A hand-built 'translator': after <bos> it says 4, 5, 6, ... and <eos> after src[b, 0] tokens."""

    pad_id = 0

    def encode(self, src):
        return src[:, :1].float()[:, :, None]  # (B, 1, 1): how many tokens to produce

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        n = memory[:, 0, 0].long()[:, None]  # (B, 1)
        nxt = torch.where(tgt_in == 1, 4, tgt_in + 1)  # count up from 4
        nxt = torch.where(nxt >= 4 + n, 2, nxt)  # <eos> once n tokens are out
        nxt = torch.where((tgt_in == 2) | (tgt_in == 0), 3, nxt)  # after <eos>: junk (3)
        return F.one_hot(nxt.clamp(max=19), 20).float() * 5.0  # (B, T, 20) logits


def pad_to(tokens, length, pad_id=0):
    """Right-pad (B, T) tokens with pad_id to `length` columns."""
    return F.pad(tokens, (0, length - tokens.shape[1]), value=pad_id)


check = Check("test_greedy")
counter = CountingModel()
src = torch.tensor([[3, 9], [1, 9], [5, 9]])  # 3, 1 and 5 tokens before <eos>
out = greedy_decode(counter, src, max_len=8, bos_id=1, eos_id=2)
check.true("max_len", out.shape[1] <= 8 and out.dtype == torch.long,
           "Return a LongTensor with at most max_len columns (no <bos>).")
check.equal("counting", pad_to(out, 8), torch.tensor([[4, 5, 6, 2, 0, 0, 0, 0],
                                                      [4, 2, 0, 0, 0, 0, 0, 0],
                                                      [4, 5, 6, 7, 8, 2, 0, 0]]),
            hint="Each row: its tokens, <eos>, then pad_id; do not return <bos>; stop each row at its <eos>.")
### BEGIN HIDDEN TESTS
src = torch.tensor([[0, 9], [2, 9], [7, 9], [12, 9]])  # immediate <eos>, 2 tokens, 7 tokens, truncated
out = greedy_decode(counter, src, max_len=6, bos_id=1, eos_id=2, pad_id=0)
check.equal("hidden_truncated", pad_to(out, 6), torch.tensor([[2, 0, 0, 0, 0, 0], [4, 5, 2, 0, 0, 0],
                                                               [4, 5, 6, 7, 8, 9], [4, 5, 6, 7, 8, 9]]),
            hint="A row that never produces <eos> stops after max_len tokens; a finished row is padded.")
check.true("hidden_no_more_than_max_len", out.shape[1] <= 6, "At most max_len generated tokens.")
out = greedy_decode(counter, torch.tensor([[2, 9], [4, 9]]), max_len=10, bos_id=1, eos_id=2, pad_id=17)
check.equal("hidden_pad_id", pad_to(out, 10, 17), torch.tensor([[4, 5, 2] + [17] * 7, [4, 5, 6, 7, 2] + [17] * 5]),
            hint="Fill finished rows with the pad_id argument.")
one = greedy_decode(counter, torch.tensor([[4, 9]]), max_len=10, bos_id=1, eos_id=2)
check.equal("hidden_single", pad_to(one, 10), torch.tensor([[4, 5, 6, 7, 2, 0, 0, 0, 0, 0]]))
### END HIDDEN TESTS
print("greedy decoding: ok")

# %% [markdown]
# **Exact match** on the held-out test split: a translation counts only if every token and
# the `<eos>` are right.

# %%
@torch.no_grad()
def translate_split(model, pairs, decode_fn, batch_size=250):
    """Predicted target word lists for a list of (src, tgt) pairs."""
    preds = []
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start: start + batch_size]
        src = encode_batch([s for s, _ in chunk], src_stoi, add_eos=False).to(device)
        out = decode_fn(model, src)
        preds += [ids_to_words(row, tgt_itos) + (["<eos>"] if (row == EOS).any() else []) for row in out.cpu()]
    return preds


def exact_match(pairs, preds):
    """Fraction of predictions equal to the reference (with its <eos>)."""
    return float(np.mean([p == t + ["<eos>"] for (_, t), p in zip(pairs, preds)]))


def greedy_fn(m, src):
    return greedy_decode(m, src, max_len=src.shape[1] + 10, bos_id=BOS, eos_id=EOS, pad_id=PAD)


# %%
# NBVAL_IGNORE_OUTPUT
start = time.time()
greedy_preds = translate_split(model, splits["test"], greedy_fn)
greedy_em = exact_match(splits["test"], greedy_preds)
long_em = exact_match(splits["long"], translate_split(model, splits["long"], greedy_fn))
print(f"greedy exact match: test {greedy_em:.2%} ({len(splits['test'])} sentences), "
      f"long sentences {long_em:.2%} ({time.time() - start:.1f} s)")
assert GRADING or greedy_em >= 0.99, "greedy exact match on the test split is below 99%"

# %% [markdown]
# The `long` split (17 to 25 tokens, longer than any training sentence) is another story:
# the model has never seen positions beyond 16 or sentences with that many phrases, and
# exact match collapses. Sinusoidal encodings are *defined* for any position, but that does
# not mean the layers above have learned to use unseen ones: length generalisation has to
# be trained for (exercise 2).

# %%
# NBVAL_IGNORE_OUTPUT
for (src_words, tgt_words), pred in list(zip(splits["test"], greedy_preds))[:5]:
    print("source   ", " ".join(src_words))
    print("reference", " ".join(tgt_words))
    print("greedy   ", " ".join(pred[:-1]), "✓" if pred == tgt_words + ["<eos>"] else "✗", "\n")

# %% [markdown]
# ## 10. Beam search with a length penalty
#
# Greedy decoding commits to the best *next* token, which need not lie on the best
# *sentence*: a slightly worse first word can lead to a much more probable whole. **Beam
# search** keeps the `beam_size` best partial hypotheses instead of one. Because every
# token multiplies the probability by a number below 1, raw log-probabilities favour
# short outputs; the **length penalty** divides the score by $|y|^\alpha$:
#
# $$\text{score}(y) = \frac{\log p(y \mid x)}{|y|^{\alpha}}$$
#
# ($|y|$ counts the generated tokens including `<eos>`; $\alpha = 0$ is no normalisation,
# $\alpha = 1$ the average log-probability per token.)
#
# Implement `beam_search(model, src, beam_size, max_len, bos_id, eos_id, length_penalty=1.0)`
# for **one** sentence, `src` of shape `(1, S)`:
#
# 1. encode once; the beam starts as `[<bos>]` with log-probability 0;
# 2. at each step, extend every live hypothesis by every token, scoring each extension by
#    its cumulative log-probability (`log_softmax` of the last-position logits), and keep
#    the `beam_size` best extensions overall;
# 3. an extension that ends with `eos_id` is **finished**: set it aside; the beam goes on
#    with the others (so it shrinks);
# 4. stop when no live hypothesis is left or after `max_len` tokens;
# 5. return, among the finished hypotheses (or the live ones if none finished), the one
#    with the highest length-penalised score, as a 1-D LongTensor of its tokens without
#    `<bos>` (ending with `<eos>` if it finished).
#
# With `beam_size=1` this is exactly greedy decoding. Hint: batch the live hypotheses as
# the rows of one `decode` call, with `memory` repeated along the batch axis.

# %% [solution] id=beam_search
@torch.no_grad()
def beam_search(model, src, beam_size, max_len, bos_id, eos_id, length_penalty=1.0):
    """Best hypothesis (1-D tokens without <bos>) by log p / len**length_penalty."""
    ### BEGIN SOLUTION
    memory = model.encode(src)  # (1, S, E)
    src_pad = src == model.pad_id  # (1, S)
    beams = torch.full((1, 1), bos_id, dtype=torch.long, device=src.device)  # (k, t) live prefixes
    scores = torch.zeros(1, device=src.device)  # (k,) cumulative log-probabilities
    finished = []  # (length-penalised score, tokens)
    for _ in range(max_len):
        k = beams.shape[0]
        logits = model.decode(beams, memory.expand(k, -1, -1), src_pad.expand(k, -1))[:, -1]  # (k, V)
        cand = scores[:, None] + logits.log_softmax(-1)  # (k, V)
        top, flat = cand.reshape(-1).topk(min(beam_size, cand.numel()))  # best extensions overall
        V = cand.shape[1]
        rows, toks = flat // V, flat % V
        alive = []
        for score, row, tok in zip(top.tolist(), rows.tolist(), toks.tolist()):
            seq = torch.cat([beams[row, 1:], beams.new_tensor([tok])])  # tokens without <bos>
            if tok == eos_id:
                finished.append((score / len(seq) ** length_penalty, seq))
            else:
                alive.append((score, row, tok))
        if not alive:
            break
        beams = torch.cat([beams[[r for _, r, _ in alive]], beams.new_tensor([[t] for _, _, t in alive])], dim=1)
        scores = scores.new_tensor([s for s, _, _ in alive])
    if not finished:  # nothing ended: fall back to the live hypotheses
        finished = [(s / (beams.shape[1] - 1) ** length_penalty, beams[i, 1:])
                    for i, s in enumerate(scores.tolist())]
    return max(finished, key=lambda item: item[0])[1]
    ### END SOLUTION


# %%
src = encode_batch([splits["test"][0][0]], src_stoi, add_eos=False).to(device)
print("beam 4:", " ".join(ids_to_words(beam_search(model, src, 4, src.shape[1] + 10, BOS, EOS), tgt_itos)))

# %% [test] id=test_beam points=3
class BigramModel(nn.Module):
    """A hand-built model whose next-token probabilities depend only on the previous token."""

    pad_id = 0

    def __init__(self, probs):
        super().__init__()
        self.logp = torch.log(probs.clamp_min(1e-9))  # (V, V): row = previous token

    def encode(self, src):
        return torch.zeros(src.shape[0], src.shape[1], 1)

    def decode(self, tgt_in, memory, memory_key_padding_mask=None):
        return self.logp[tgt_in]  # (B, T, V): log-probabilities are valid logits


def bigram(rows, V=9):
    """A (V, V) probability table from {previous: {next: p}}; unlisted rows are uniform."""
    table = torch.full((V, V), 1.0 / V)
    for prev, nxt in rows.items():
        table[prev] = 1e-6
        for tok, p in nxt.items():
            table[prev, tok] = p
    return table


# tokens: 0 pad, 1 <bos>, 2 <eos>, 3 A, 4 B, 5 C, 6 D, 7 G, 8 H
A, B_, C, D, G, H = 3, 4, 5, 6, 7, 8
check = Check("test_beam")
# Greedy takes A (0.5) then <eos> (0.4): p = 0.20. But B C <eos> has p = 0.4 * 0.9 * 0.95 = 0.342.
trap = BigramModel(bigram({1: {A: 0.5, B_: 0.4, 2: 0.05, G: 0.05}, A: {2: 0.4, C: 0.3, D: 0.28, G: 0.02},
                           B_: {C: 0.9, G: 0.1}, C: {2: 0.95, G: 0.05}, D: {2: 0.9, G: 0.1},
                           G: {G: 0.9, H: 0.1}, H: {H: 0.9, G: 0.1}}))
one = torch.tensor([[5, 6, 7]])
check.equal("beam_finds_better", beam_search(trap, one, 2, 6, 1, 2, length_penalty=0.0),
            torch.tensor([B_, C, 2]), hint="Keep the beam_size best extensions over all live hypotheses.")
check.equal("beam1_is_greedy", beam_search(trap, one, 1, 6, 1, 2), torch.tensor([A, 2]),
            hint="With beam_size=1, beam search must give the greedy output (here A then <eos>).")
### BEGIN HIDDEN TESTS
# Length normalisation: <eos> at once has p = 0.3 (log -1.20); A B C D <eos> has p = 0.6 * 0.8**4 = 0.246
# (log -1.40, but -0.28 per token). Unnormalised beam search prefers the empty translation.
short = BigramModel(bigram({1: {A: 0.6, 2: 0.3, G: 0.06, H: 0.04}, A: {B_: 0.8, G: 0.15, H: 0.05},
                            B_: {C: 0.8, G: 0.15, H: 0.05}, C: {D: 0.8, G: 0.15, H: 0.05},
                            D: {2: 0.8, G: 0.15, H: 0.05}, G: {G: 0.9, H: 0.1}, H: {H: 0.9, G: 0.1}}))
long_answer, empty = torch.tensor([A, B_, C, D, 2]), torch.tensor([2])
for k in (2, 3):
    got = beam_search(short, one, k, 10, 1, 2, length_penalty=1.0)
    check.close(f"hidden_length_penalty_{k}", pad_to(got[None], 10).float(), pad_to(long_answer[None], 10).float(),
                atol=0, rtol=0, hint="Rank finished hypotheses by log p / len**length_penalty.",
                mistakes={"the scores are not length-normalised (length_penalty ignored)": pad_to(empty[None], 10).float()})
    check.equal(f"hidden_no_penalty_{k}", beam_search(short, one, k, 10, 1, 2, length_penalty=0.0), empty,
                hint="length_penalty=0 ranks by the raw log-probability.")
check.equal("hidden_trap_k3", beam_search(trap, one, 3, 6, 1, 2, length_penalty=1.0), torch.tensor([B_, C, 2]))
check.equal("hidden_trap_default", beam_search(trap, torch.tensor([[4, 4]]), 2, 6, 1, 2), torch.tensor([B_, C, 2]))
# beam size 1 equals greedy decoding on random tables and on the counting model
def greedy_path(probs, max_len):
    """The arg-max chain of a bigram table from <bos>, up to <eos> or max_len tokens."""
    path, prev = [], 1
    while len(path) < max_len and prev != 2:
        prev = int(probs[prev].argmax())
        path.append(prev)
    return torch.tensor(path)


gen = torch.Generator().manual_seed(9)
for trial in range(4):
    logits = torch.randn(9, 9, generator=gen) * 2
    logits[:, :2] = -30.0  # never <pad> or <bos>
    probs = torch.softmax(logits, dim=-1)
    check.equal(f"hidden_beam1_random_{trial}", beam_search(BigramModel(probs), one, 1, 7, 1, 2, length_penalty=0.7),
                greedy_path(probs, 7),
                hint="beam_size=1 must reproduce greedy decoding (also when no <eos> comes within max_len).")
counter = CountingModel()
for n in (0, 3, 6):
    check.equal(f"hidden_beam1_counting_{n}", beam_search(counter, torch.tensor([[n, 9]]), 1, 8, 1, 2),
                torch.tensor(list(range(4, 4 + n)) + [2]))
### END HIDDEN TESTS
print("beam search: ok")

# %% [markdown]
# On the trained model the task is nearly deterministic, so beam search mostly agrees with
# greedy; it must never be worse. (Beam search is slower: one sentence at a time here.)

# %%
# NBVAL_IGNORE_OUTPUT
n_beam = scaled(100, 4)
subset = splits["test"][:n_beam]
start = time.time()
beam_preds = []
for src_words, _ in tqdm(subset, desc="beam search", leave=False, mininterval=1.0):
    src = encode_batch([src_words], src_stoi, add_eos=False).to(device)
    out = beam_search(model, src, beam_size=4, max_len=src.shape[1] + 10, bos_id=BOS, eos_id=EOS)
    beam_preds.append(ids_to_words(out, tgt_itos) + (["<eos>"] if (out == EOS).any() else []))
beam_em, greedy_sub_em = exact_match(subset, beam_preds), exact_match(subset, greedy_preds[:n_beam])
print(f"on {n_beam} test sentences: greedy {greedy_sub_em:.2%}, beam (k=4, α=1) {beam_em:.2%} "
      f"({time.time() - start:.1f} s)")
assert GRADING or beam_em >= greedy_sub_em, "beam search did worse than greedy"

# %% [markdown]
# ## 11. Sampling: temperature, top-k, top-p
#
# For varied outputs (dialogue, stories, back-translation) we *sample* the next token
# instead of taking the arg-max. Three knobs shape the distribution we sample from:
#
# * **temperature** $\tau$: $p \propto \exp(z / \tau)$; $\tau < 1$ sharpens (towards greedy),
#   $\tau > 1$ flattens (towards uniform);
# * **top-k**: keep only the $k$ most likely tokens;
# * **top-p** (nucleus, Holtzman et al. 2020): keep the smallest set of most likely tokens
#   whose total probability reaches $p$ — formally, keep a token if the probability of the
#   tokens ranked strictly above it is below $p$ (so the most likely token always stays).
#
# Implement `sampling_probs(logits, temperature=1.0, top_k=None, top_p=None)`: `logits`
# `(..., V)`; apply temperature, then top-k, then top-p (on the distribution left after
# top-k), and return the renormalised probabilities `(..., V)`, exactly 0 for removed tokens.

# %% [solution] id=sampling_probs
def sampling_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution to sample the next token from, after temperature, top-k and top-p."""
    ### BEGIN SOLUTION
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]  # (..., 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = logits.softmax(-1)
    if top_p is not None:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        mass_before = sorted_p.cumsum(-1) - sorted_p  # probability ranked strictly above
        keep_sorted = mass_before < top_p
        keep = keep_sorted.scatter(-1, order, keep_sorted)  # back to vocabulary order
        probs = probs.masked_fill(~keep, 0.0)
        probs = probs / probs.sum(-1, keepdim=True)
    return probs
    ### END SOLUTION


# %%
z = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0])
for kwargs in ({}, {"temperature": 0.5}, {"temperature": 2.0}, {"top_k": 2}, {"top_p": 0.8}):
    print(f"{str(kwargs):<22}", sampling_probs(z, **kwargs).numpy().round(4))

# %% [test] id=test_sampling points=2
check = Check("test_sampling")
z = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0])
p = torch.softmax(z, -1)
check.close("plain", sampling_probs(z), p, atol=1e-6)
check.close("temperature", sampling_probs(z, temperature=0.5), torch.softmax(z / 0.5, -1), atol=1e-6,
            mistakes={"the logits are multiplied by the temperature instead of divided":
                      torch.softmax(z * 0.5, -1)})
check.close("top_k", sampling_probs(z, top_k=2), torch.tensor([p[0], p[1], 0, 0, 0]) / (p[0] + p[1]), atol=1e-6)
# p = [0.5630, 0.2071, 0.1256, 0.0762, 0.0280]: for top_p = 0.8 the first three are kept (0.7701 < 0.8)
check.close("top_p", sampling_probs(z, top_p=0.8), torch.tensor([p[0], p[1], p[2], 0, 0]) / p[:3].sum(), atol=1e-6,
            hint="Keep a token while the probability ranked strictly above it is below top_p; renormalise.",
            mistakes={"the token that crosses top_p is dropped": torch.tensor([p[0], p[1], 0, 0, 0]) / p[:2].sum()})
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(13)


def ref_probs(logits, temperature=1.0, top_k=None, top_p=None):
    logits = logits.double() / temperature
    if top_k is not None:
        vals, idx = logits.topk(min(top_k, logits.shape[-1]), -1)
        logits = torch.full_like(logits, float("-inf")).scatter(-1, idx, vals)
    probs = logits.softmax(-1)
    if top_p is not None:
        sp, order = probs.sort(-1, descending=True)
        keep_sorted = (sp.cumsum(-1) - sp) < top_p
        keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
        probs = torch.where(keep, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(-1, keepdim=True)
    return probs.float()


for trial, (shape, kwargs) in enumerate([((3, 10), dict(temperature=0.7)), ((2, 4, 12), dict(top_k=3)),
                                         ((4, 9), dict(top_p=0.55)), ((2, 20), dict(temperature=1.5, top_k=8, top_p=0.7)),
                                         ((5, 6), dict(top_k=10)), ((3, 7), dict(top_p=1.0))]):
    logits = torch.randn(*shape, generator=gen) * 2
    check.close(f"hidden_{trial}", sampling_probs(logits, **kwargs), ref_probs(logits, **kwargs), atol=1e-5,
                hint=f"shape {shape}, {kwargs}: temperature, then top-k, then top-p on what is left.")
### END HIDDEN TESTS
print("sampling distributions: ok")

# %%
@torch.no_grad()
def sample_translate(model, src, max_len, generator, **knobs):
    """Ancestral sampling from sampling_probs, one sentence (1, S) -> words."""
    memory, src_pad = model.encode(src), src == model.pad_id
    ys = torch.full((1, 1), BOS, dtype=torch.long, device=src.device)
    for _ in range(max_len):
        probs = sampling_probs(model.decode(ys, memory, src_pad)[:, -1], **knobs)  # (1, V)
        tok = torch.multinomial(probs.cpu(), 1, generator=generator).to(src.device)  # (1, 1)
        ys = torch.cat([ys, tok], dim=1)
        if tok.item() == EOS:
            break
    return ids_to_words(ys[0, 1:], tgt_itos)


# %%
# NBVAL_IGNORE_OUTPUT
src_words, ref_words = splits["test"][1]
src = encode_batch([src_words], src_stoi, add_eos=False).to(device)
print("source   ", " ".join(src_words), "\nreference", " ".join(ref_words))
sample_gen = torch.Generator().manual_seed(0)
n_samples, agreement = scaled(20, 2), []
for knobs in ({"temperature": 0.5}, {"temperature": 1.0}, {"temperature": 3.0},
              {"temperature": 1.0, "top_k": 3}, {"temperature": 1.0, "top_p": 0.9},
              {"temperature": 3.0, "top_p": 0.9}):
    samples = [sample_translate(model, src, len(src_words) + 5, sample_gen, **knobs) for _ in range(n_samples)]
    agree = np.mean([s == ref_words for s in samples])
    agreement.append(agree)
    print(f"{str(knobs):<36} {agree:4.0%} of {n_samples} samples equal the reference; e.g. {' '.join(samples[-1])}")
assert GRADING or agreement[0] > agreement[2], "a low temperature should beat a high one"
assert GRADING or agreement[4] >= agreement[1], "cutting the tail (top-p) should not hurt"

# %% [markdown]
# Low temperature reproduces the greedy translation; a high temperature produces garbage
# (words the model knows are wrong still get probability, even `<bos>`). Even at $\tau = 1$
# many samples differ from the greedy output: label smoothing taught the model to keep about
# 10% of the probability for other tokens, spread thinly over the whole vocabulary, which the
# arg-max ignores but sampling does not. Top-k and top-p cut exactly that long tail and bring
# the quality back. At $\tau = 3$, though, the distribution is so flat that 90% of its mass
# covers many wrong words: top-p adapts to the shape of the distribution, so it cannot rescue
# a temperature that flattened it. (Translation wants the single best output, so it uses
# greedy or beam search; sampling is for tasks that want variety.)
#
# ## 12. What cross-attention looks at
#
# The cross-attention weights of a decoder layer say, for every target position, which
# source positions it reads. We capture them with hooks on `multihead_attn` (asking it for
# its weights, averaged over heads). The map should show the reordering: the verb (last in
# the target) reads the verb (third or so in the source), adjectives are read in mirror
# order, and a final source adverb is read first.

# %%
@torch.no_grad()
def cross_attention_maps(model, src, tgt_in):
    """Per decoder layer, the head-averaged cross-attention weights (B, T, S)."""
    maps, handles = [], []

    def ask_for_weights(module, args, kwargs):
        if len(args) > 4:  # need_weights passed by position
            args = args[:4] + (True,) + args[5:]
        else:
            kwargs["need_weights"] = True
        kwargs["average_attn_weights"] = True
        return args, kwargs

    def keep(module, args, kwargs, output):
        maps.append(output[1].detach().cpu())

    for block in model.decoder_layers:
        handles.append(block.multihead_attn.register_forward_pre_hook(ask_for_weights, with_kwargs=True))
        handles.append(block.multihead_attn.register_forward_hook(keep, with_kwargs=True))
    try:
        model(src, tgt_in)
    finally:
        for h in handles:
            h.remove()
    return maps


# %%
# NBVAL_IGNORE_OUTPUT
src_words = "the old red dog chases a small cat in the green garden today".split()
src = encode_batch([src_words], src_stoi, add_eos=False).to(device)
pred = greedy_decode(model, src, len(src_words) + 5, BOS, EOS)
tgt_in = torch.cat([torch.full((1, 1), BOS, device=device), pred[:, :-1]], dim=1)
maps = cross_attention_maps(model, src, tgt_in)
words = ids_to_words(pred[0], tgt_itos)
out_words = words + (["<eos>"] if (pred[0] == EOS).any() else [])  # one label per decoder position
print("translation:", " ".join(words))
fig, axes = plt.subplots(1, len(maps), figsize=(6.5 * len(maps), 5.5))
for i, (ax, w) in enumerate(zip(np.atleast_1d(axes), maps)):
    heatmap(w[0, : len(out_words)], src_words, out_words, title=f"decoder layer {i + 1}: cross-attention", ax=ax)
    ax.set(xlabel="source token (key)", ylabel="target token being produced (query)")
fig.tight_layout()
plt.show()
last = maps[-1][0, : len(out_words)]
verb_reads = int(last[max(len(words) - 1, 0)].argmax())  # the row that produces the last word (the verb)
print(f"in the last layer the target verb reads source position {verb_reads} ('{src_words[verb_reads]}')")
assert GRADING or src_words[verb_reads] == "chases", "the verb's cross-attention does not find the source verb"

# %% [markdown]
# ## 13. Contextual embeddings: which *bank*?
#
# The input embedding of *bank* is one vector, whatever the sentence. After the encoder,
# each occurrence of *bank* has its own vector, computed from the whole sentence by
# self-attention: a **contextual embedding**. Our model has to translate *bank* as
# *tijori* after *robs* / *pays* and *kinara* after *crosses* / *cleans*, so its encoder
# vectors for *bank* should fall into two groups.

# %%
# NBVAL_IGNORE_OUTPUT
subjects = ["man", "girl", "old king", "happy farmer"]
bank_sents = [f"the {s} {v} the bank".split() for v in ("robs", "pays", "crosses", "cleans") for s in subjects]
senses = ["money" if "robs" in s or "pays" in s else "river" for s in bank_sents]
src = encode_batch(bank_sents, src_stoi, add_eos=False).to(device)
with torch.no_grad():
    memory = model.encode(src)  # (N, S, E)
    where = [s.index("bank") for s in bank_sents]
    vecs = F.normalize(memory[torch.arange(len(bank_sents)), torch.tensor(where)], dim=-1)  # (N, E)
    cos = (vecs @ vecs.T).cpu()  # (N, N) cosine similarities
    static = model.src_embed.weight[src_stoi.get("bank", UNK)]
money = torch.tensor([s == "money" for s in senses])
same = cos[money[:, None] == money[None, :]].mean().item()
across = cos[money[:, None] != money[None, :]].mean().item()
labels = [" ".join(s[1:-2]) for s in bank_sents]
ax = heatmap(cos, labels, labels, title="cosine similarity of the encoder vectors of 'bank'")
ax.set(xlabel="sentence ('the … bank')", ylabel="sentence ('the … bank')")
plt.setp(ax.get_xticklabels(), rotation=90)
plt.show()
translations = [ids_to_words(row, tgt_itos) for row in greedy_decode(model, src, 10, BOS, EOS).cpu()]
print("input embedding: the same vector in all 16 sentences (norm", round(static.norm().item(), 3), ")")
print(f"encoder vectors: mean cosine {same:.3f} within a sense, {across:.3f} across senses")
bank_words = [[w for w in t if w in BANK.values()] for t in translations]
print("'bank' translated as:", {sense: sorted({" ".join(b) for b, s2 in zip(bank_words, senses) if s2 == sense})
                                for sense in ("money", "river")})
assert GRADING or same > across, "the encoder does not separate the two senses of 'bank'"

# %% [markdown]
# ## 14. Saving the model *with* its vocabularies
#
# A state dict alone is not a translator: it maps ids to ids. Reload it next month with a
# vocabulary rebuilt from a slightly different corpus (another sort order, one more word)
# and every id is shifted: the model runs and produces fluent garbage — no error anywhere.
# Save everything needed to rebuild and use the model in one file: the configuration,
# the weights and both vocabularies (and the special-token ids).

# %%
# NBVAL_IGNORE_OUTPUT
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "translator.pt")
    torch.save({"config": CONFIG, "state_dict": model.state_dict(), "src_itos": src_itos,
                "tgt_itos": tgt_itos, "specials": {"pad": PAD, "bos": BOS, "eos": EOS, "unk": UNK}}, path)
    print("checkpoint size:", os.path.getsize(path) // 1024, "KiB")
    ckpt = torch.load(path, map_location="cpu", weights_only=True)  # plain data only: no code runs

restored = Seq2SeqTransformer(**ckpt["config"]).to(device)
restored.load_state_dict(ckpt["state_dict"])
restored.eval()
r_src_stoi = {w: i for i, w in enumerate(ckpt["src_itos"])}


def translate(m, sentences, stoi, itos, sp):
    """Sentences (strings) -> translations (strings) with the given model and vocabularies."""
    src = encode_batch([s.split() for s in sentences], stoi, add_eos=False).to(device)
    out = greedy_decode(m, src, src.shape[1] + 10, sp["bos"], sp["eos"], sp["pad"])
    return [" ".join(itos[i] for i in row.tolist() if i not in (sp["pad"], sp["eos"])) for row in out.cpu()]


probe = [" ".join(s) for s, _ in splits["test"][:4]] + ["the happy girl pays the bank again"]
before = translate(model, probe, src_stoi, tgt_itos, {"pad": PAD, "bos": BOS, "eos": EOS})
after = translate(restored, probe, r_src_stoi, ckpt["tgt_itos"], ckpt["specials"])
for s, a, b in zip(probe, before, after):
    print(f"{s}\n   -> {b}   {'(same)' if a == b else '(DIFFERENT!)'}")
assert before == after, "the reloaded model translates differently"

# %% [markdown]
# ## Check your work
#
# The table below lists every visible test you ran in this notebook. Green here means
# the visible tests pass; hidden tests check more when your notebook is graded.

# %%
from workbook import self_check

self_check()

# %% [markdown]
# ## Summary
#
# * Training uses **teacher forcing**: the decoder input is the target shifted right behind
#   `<bos>`, and a causal mask keeps position $t$ from seeing $y_t$.
# * A decoder block = masked self-attention → cross-attention (queries from the decoder,
#   keys/values from the encoder memory, source padding masked) → FFN, each with a residual
#   and a LayerNorm (post- or pre-norm).
# * The model scales embeddings by $\sqrt{d_\text{model}}$, adds sinusoidal positions, and
#   can tie its output projection to its embeddings: the base model is 44M parameters of
#   stacks plus 19M of shared embedding.
# * Training: cross-entropy with `ignore_index` for padding and label smoothing 0.1, Adam
#   with warm-up then $1/\sqrt{\text{step}}$ decay.
# * Decoding: greedy (stop each sentence at `<eos>`), beam search (length-normalised
#   scores), and sampling with temperature, top-k and top-p.
# * Cross-attention maps show the learned alignment; encoder outputs are contextual; a
#   checkpoint must carry its vocabularies.
#
# ## Exercises
#
# 1. **No scaling.** Train again without the $\times\sqrt{d_\text{model}}$ (or with
#    embeddings initialised at std 1 and scaled): how many epochs to reach 99%? Why?
# 2. **Length generalisation.** Train only on sentences of at most 12 tokens and evaluate
#    on the `long` split. Which errors appear first? Does learned position embedding do
#    better or worse than sinusoidal?
# 3. **Beam size.** Plot exact match and average length against beam size 1–8 for
#    $\alpha \in \{0, 0.6, 1\}$ on a half-trained model (2 epochs). When does $\alpha = 0$
#    produce too-short outputs?
# 4. **Label smoothing.** Train with $\epsilon = 0$ and $\epsilon = 0.1$; compare the
#    per-token confidence on the test split and the exact match.
# 5. **Pre-norm.** Train with `norm_first=True` and no warm-up (`WARMUP = 1`). Then try the
#    same with post-norm. Which one diverges?
