# %% [markdown]
# # 06 · RNN sequence-to-sequence and the birth of attention
#
# **Objectives.** By the end of this notebook you can
#
# 1. describe the encoder–decoder (seq2seq) architecture and its weak point: the whole
#    source sentence squeezed into one fixed-size vector (the **bottleneck**);
# 2. implement **additive** (Bahdanau) and **multiplicative** (Luong) attention, with
#    source padding masked;
# 3. write one decoder step that reads the source through attention, and unroll it with
#    **teacher forcing**, **free running** or **scheduled sampling**;
# 4. measure the bottleneck (accuracy against source length, with and without
#    attention), read an alignment heatmap, and measure **exposure bias**.
#
# **How to work.** Fill in every cell that says `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run the toy call below it, then the visible test.
# Visible tests give points and say what is likely wrong; hidden tests check more
# (other shapes, masks, gradients, hand-built decoders) when your notebook is graded.
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
import time
from collections import defaultdict

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
# We translate between two made-up languages, generated from a seed (the same pair as in
# notebook 07):
#
# * the source is English-like, *subject–verb–object*, adjectives before the noun,
#   prepositions, an optional adverb at the end;
# * the target has its own words and is *subject–object–verb* (like Hindi or Japanese):
#   adjectives after the noun in mirror order, postpositions, the adverb first.
#
# So the alignment between the two sentences is **not monotonic**: the last target word
# (the verb) comes from the middle of the source, and the first one can come from the
# end. The *bank* of the source is *tijori* after *robs* / *pays* and *kinara* after
# *crosses* / *cleans*. Train / validation / test sentences have 5 to 16 source tokens; a
# separate **long** split has 17 to 25, for the bottleneck experiment.

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


splits = make_splits(seed=0, n_train=scaled(6000, 256), n_val=scaled(300, 32),
                     n_test=scaled(1000, 64), n_long=scaled(400, 32))
for name, pairs in splits.items():
    lens = [len(s) for s, _ in pairs]
    print(f"{name:>5}: {len(pairs):5d} pairs, source lengths {min(lens)}-{max(lens)}")
for src, tgt in splits["train"][:3]:
    print(" ".join(src), "\n   ->", " ".join(tgt))

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


src_itos = build_vocab(s for s, _ in splits["train"])
tgt_itos = build_vocab(t for _, t in splits["train"])
src_stoi = {w: i for i, w in enumerate(src_itos)}
tgt_stoi = {w: i for i, w in enumerate(tgt_itos)}
print("source vocabulary:", len(src_itos), "| target vocabulary:", len(tgt_itos))

# %% [markdown]
# ## 2. Sequence to sequence, and its bottleneck
#
# The RNN encoder–decoder (Cho et al. 2014; Sutskever et al. 2014) reads the source with
# one recurrent network, the **encoder**, and writes the target with another, the
# **decoder**:
#
# $$h_j = \text{GRU}_\text{enc}(x_j, h_{j-1}),\qquad c = h_S,\qquad
# s_t = \text{GRU}_\text{dec}([y_{t-1}; c], s_{t-1}),\qquad p(y_t \mid y_{<t}, x) = \text{softmax}(W_o [s_t; c; y_{t-1}])$$
#
# Everything the decoder knows about the source is the single vector $c = h_S$, the
# encoder's last state, whatever the sentence length: 5 words or 25 words go through the
# same 64 numbers. This **fixed-size bottleneck** is why the first seq2seq models got worse
# on long sentences (Cho et al. 2014, Figure 1) — and it is what attention removed.
#
# **Attention** (Bahdanau, Cho & Bengio 2015) keeps *all* encoder states $h_1 \dots h_S$ and
# lets the decoder compute, at every step, its own summary of them:
#
# $$e_{tj} = \text{score}(s_{t-1}, h_j),\qquad \alpha_{tj} = \frac{\exp e_{tj}}{\sum_k \exp e_{tk}},\qquad c_t = \sum_j \alpha_{tj} h_j$$
#
# The context $c_t$ changes with $t$: when writing the verb, the decoder can look at the
# source verb. The weights $\alpha_{tj}$ are a soft **alignment** between target and source.
#
# ## 3. Additive (Bahdanau) attention
#
# Bahdanau et al. score each source position with a one-hidden-layer network:
#
# $$e_{j} = v^\top \tanh\!\left(W_1 s + W_2 h_j\right)$$
#
# Implement `additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None)`:
#
# * `dec_hidden` $s$: `(B, H_dec)`, the decoder state (the *query*);
# * `enc_outputs` $h$: `(B, S, H_enc)`, the encoder states (the *keys* and *values*);
# * `W1`: `(A, H_dec)`, `W2`: `(A, H_enc)`, `v`: `(A,)` — plain tensors, used like the
#   weight of an `nn.Linear` ($W_1 s$ is `dec_hidden @ W1.T`);
# * `src_mask`: optional **allowed-mask** `(B, S)`, bool, **True = real token**, False =
#   padding (the convention of notebooks 01–02); padding must get exactly zero weight.
#   Every row has at least one real token.
# * Return `(context (B, H_enc), weights (B, S))`, the weights a softmax over the source
#   positions.
#
# Tip: $W_1 s$ is one vector per sentence and $W_2 h_j$ one per source position;
# broadcast the first over the positions instead of looping.

# %% [solution] id=additive_attention
def additive_attention(dec_hidden, enc_outputs, W1, W2, v, src_mask=None):
    """Bahdanau attention: v . tanh(W1 s + W2 h_j), softmax over j; returns (context, weights)."""
    ### BEGIN SOLUTION
    query = dec_hidden @ W1.T  # (B, A)
    keys = enc_outputs @ W2.T  # (B, S, A)
    scores = torch.tanh(query[:, None, :] + keys) @ v  # (B, S)
    if src_mask is not None:
        scores = scores.masked_fill(~src_mask, float("-inf"))  # padding: weight exactly 0
    weights = torch.softmax(scores, dim=-1)  # over source positions
    context = (weights[:, :, None] * enc_outputs).sum(dim=1)  # (B, H_enc)
    return context, weights
    ### END SOLUTION


# %%
gen = torch.Generator().manual_seed(0)
dec_h, enc_h = torch.randn(2, 5, generator=gen), torch.randn(2, 7, 6, generator=gen)  # H_dec=5, S=7, H_enc=6
W1, W2, v = torch.randn(4, 5, generator=gen), torch.randn(4, 6, generator=gen), torch.randn(4, generator=gen)
toy_mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])  # the second sentence has 3 pads
context, weights = additive_attention(dec_h, enc_h, W1, W2, v, toy_mask)
print("context", tuple(context.shape), "| weights", tuple(weights.shape))
print("weights of the padded sentence:", weights[1])

# %% [test] id=test_additive points=2
check = Check("test_additive")
# A hand example: one decoder state, three source positions, attention size 3.
s1 = torch.tensor([[1.0, 0.0]])
h3 = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]])
W1h = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
W2h = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
vh = torch.tensor([1.0, 1.0, -1.0])
context, weights = additive_attention(s1, h3, W1h, W2h, vh)
check.close("hand_weights", weights, torch.tensor([[0.195023, 0.730604, 0.074373]]), atol=1e-5,
            hint="e_j = v · tanh(W1 s + W2 h_j); softmax over the source positions.",
            mistakes={"the tanh is missing (e_j = v · (W1 s + W2 h_j))": torch.tensor([[0.259496, 0.705385, 0.035119]]),
                      "the softmax runs over the batch axis (dim=0) instead of the source positions":
                          torch.tensor([[1.0, 1.0, 1.0]])})
check.close("hand_context", context, torch.tensor([[0.120650, 0.730604]]), atol=1e-5,
            hint="context = Σ_j weights_j h_j, shape (B, H_enc).")
masked = torch.tensor([[True, True, False]])
context, weights = additive_attention(s1, h3, W1h, W2h, vh, masked)
check.close("hand_masked", weights, torch.tensor([[0.210693, 0.789307, 0.0]]), atol=1e-5,
            hint="src_mask is True on real tokens: padding scores become -inf before the softmax.",
            mistakes={"the source padding is not masked": torch.tensor([[0.195023, 0.730604, 0.074373]]),
                      "the mask is inverted (True treated as padding)": torch.tensor([[0.0, 0.0, 1.0]])})
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(21)


def additive_ref(s, h, W1, W2, v, mask=None, tanh=True):
    pre = (s @ W1.T)[:, None, :] + h @ W2.T
    e = (torch.tanh(pre) if tanh else pre) @ v
    if mask is not None:
        e = e.masked_fill(~mask, float("-inf"))
    w = e.softmax(-1)
    return torch.einsum("bs,bsh->bh", w, h), w


for trial, (B, S, Hd, He, A) in enumerate([(1, 1, 3, 3, 2), (3, 6, 5, 7, 4), (4, 9, 8, 8, 16), (2, 12, 4, 10, 6)]):
    s = torch.randn(B, Hd, generator=gen, dtype=torch.float64)
    h = torch.randn(B, S, He, generator=gen, dtype=torch.float64)
    W1 = torch.randn(A, Hd, generator=gen, dtype=torch.float64)
    W2 = torch.randn(A, He, generator=gen, dtype=torch.float64)
    v = torch.randn(A, generator=gen, dtype=torch.float64)
    lengths = torch.randint(1, S + 1, (B,), generator=gen)
    mask = torch.arange(S)[None, :] < lengths[:, None]  # (B, S) True = real
    for masked_name, m in (("nomask", None), ("mask", mask)):
        want_c, want_w = additive_ref(s, h, W1, W2, v, m)
        got_c, got_w = additive_attention(s, h, W1, W2, v, m)
        mistakes = {"the tanh is missing": additive_ref(s, h, W1, W2, v, m, tanh=False)[1]}
        if m is not None:
            mistakes["the source padding is not masked"] = additive_ref(s, h, W1, W2, v)[1]
            mistakes["the mask is inverted (True treated as padding)"] = additive_ref(s, h, W1, W2, v, ~m)[1]
        check.close(f"hidden_w_{trial}_{masked_name}", got_w, want_w, atol=1e-8,
                    hint=f"B={B}, S={S}, H_dec={Hd}, H_enc={He}, A={A}.", mistakes=mistakes)
        check.close(f"hidden_c_{trial}_{masked_name}", got_c, want_c, atol=1e-8)
# gradients flow to every input
s, h = torch.randn(2, 3, generator=gen, requires_grad=True), torch.randn(2, 4, 3, generator=gen, requires_grad=True)
W1, W2, v = (torch.randn(*shape, generator=gen, requires_grad=True) for shape in ((5, 3), (5, 3), (5,)))
c, w = additive_attention(s, h, W1, W2, v, torch.tensor([[True, True, True, False], [True] * 4]))
(c.sum() + (w * torch.arange(4.0)).sum()).backward()
check.true("hidden_grads", all(t.grad is not None and torch.isfinite(t.grad).all() for t in (s, h, W1, W2, v)),
           "Gradients must reach dec_hidden, enc_outputs, W1, W2 and v (no .detach(), no NumPy).")
check.true("hidden_pad_grad_zero", bool((h.grad[0, 3] == 0).all()),
           "A padded encoder position must not influence the context.")
### END HIDDEN TESTS
print("additive attention: ok")

# %% [markdown]
# ## 4. Multiplicative (Luong) attention
#
# Luong, Pham & Manning (2015) proposed cheaper scores: *dot* $e_j = s^\top h_j$ (needs
# $H_\text{dec} = H_\text{enc}$), *general* $e_j = s^\top W h_j$, and *concat* (which is
# Bahdanau's). The *general* form is a bilinear product: $W$ lets the decoder state and the
# encoder states live in different spaces. Scaled dot-product attention (notebook 01) is the
# *dot* form divided by $\sqrt{d_k}$, with learned projections for queries and keys.
#
# Implement `multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None)` with
# $e_j = s^\top W h_j$: `dec_hidden` `(B, H_dec)`, `enc_outputs` `(B, S, H_enc)`,
# `W` `(H_dec, H_enc)`, `src_mask` as above. Return `(context (B, H_enc), weights (B, S))`.
# No scaling.

# %% [solution] id=multiplicative_attention
def multiplicative_attention(dec_hidden, enc_outputs, W, src_mask=None):
    """Luong 'general' attention: s^T W h_j, softmax over j; returns (context, weights)."""
    ### BEGIN SOLUTION
    query = dec_hidden @ W  # (B, H_enc): s^T W, one vector per sentence
    scores = torch.bmm(enc_outputs, query[:, :, None])[:, :, 0]  # (B, S)
    if src_mask is not None:
        scores = scores.masked_fill(~src_mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = torch.bmm(weights[:, None, :], enc_outputs)[:, 0]  # (B, H_enc)
    return context, weights
    ### END SOLUTION


# %%
W = torch.randn(5, 6, generator=gen)
context, weights = multiplicative_attention(dec_h, enc_h, W, toy_mask)
print("context", tuple(context.shape), "| weights", tuple(weights.shape), "| row sums", weights.sum(-1))

# %% [test] id=test_multiplicative points=2
check = Check("test_multiplicative")
d1 = torch.tensor([[1.0, 1.0]])
Wh = torch.tensor([[1.0, 1.0], [0.0, 2.0]])
context, weights = multiplicative_attention(d1, h3, Wh)
check.close("hand_weights", weights, torch.tensor([[0.117310, 0.866813, 0.015876]]), atol=1e-5,
            hint="e_j = s^T W h_j, softmax over the source positions.",
            mistakes={"W is ignored (plain dot product s·h_j)": torch.tensor([[0.468311, 0.468311, 0.063379]]),
                      "W is transposed (s^T W^T h_j)": torch.tensor([[0.495463, 0.495463, 0.009075]])})
check.close("hand_context", context, torch.tensor([[0.101434, 0.866813]]), atol=1e-5)
context, weights = multiplicative_attention(d1, h3, Wh, torch.tensor([[True, True, False]]))
check.close("hand_masked", weights, torch.tensor([[0.119203, 0.880797, 0.0]]), atol=1e-5,
            mistakes={"the source padding is not masked": torch.tensor([[0.117310, 0.866813, 0.015876]]),
                      "the mask is inverted (True treated as padding)": torch.tensor([[0.0, 0.0, 1.0]])})
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(22)


def multiplicative_ref(s, h, W, mask=None):
    e = torch.einsum("bd,de,bse->bs", s, W, h)
    if mask is not None:
        e = e.masked_fill(~mask, float("-inf"))
    w = e.softmax(-1)
    return torch.einsum("bs,bse->be", w, h), w


for trial, (B, S, Hd, He) in enumerate([(1, 1, 2, 2), (3, 5, 4, 6), (2, 8, 7, 3), (5, 11, 6, 6)]):
    s = torch.randn(B, Hd, generator=gen, dtype=torch.float64)
    h = torch.randn(B, S, He, generator=gen, dtype=torch.float64)
    W = torch.randn(Hd, He, generator=gen, dtype=torch.float64)
    mask = torch.arange(S)[None, :] < torch.randint(1, S + 1, (B,), generator=gen)[:, None]
    mistakes = {"the source padding is not masked": multiplicative_ref(s, h, W)[1]}
    if Hd == He:
        mistakes["W is ignored (plain dot product s·h_j)"] = multiplicative_ref(s, h, torch.eye(Hd, dtype=W.dtype), mask)[1]
        mistakes["W is transposed (s^T W^T h_j)"] = multiplicative_ref(s, h, W.T, mask)[1]
    want_c, want_w = multiplicative_ref(s, h, W, mask)
    got_c, got_w = multiplicative_attention(s, h, W, mask)
    check.close(f"hidden_w_{trial}", got_w, want_w, atol=1e-8, hint=f"B={B}, S={S}, H_dec={Hd}, H_enc={He}.",
                mistakes=mistakes)
    check.close(f"hidden_c_{trial}", got_c, want_c, atol=1e-8)
    check.close(f"hidden_nomask_{trial}", multiplicative_attention(s, h, W)[1], multiplicative_ref(s, h, W)[1], atol=1e-8)
s, h = torch.randn(2, 3, generator=gen, requires_grad=True), torch.randn(2, 4, 5, generator=gen, requires_grad=True)
W = torch.randn(3, 5, generator=gen, requires_grad=True)
c, w = multiplicative_attention(s, h, W, torch.tensor([[True, True, False, False], [True] * 4]))
c.sum().backward()
check.true("hidden_grads", all(t.grad is not None and torch.isfinite(t.grad).all() for t in (s, h, W)),
           "Gradients must reach dec_hidden, enc_outputs and W.")
check.true("hidden_pad_grad_zero", bool((h.grad[0, 2:] == 0).all()), "Padded positions must not influence the context.")
### END HIDDEN TESTS
print("multiplicative attention: ok")

# %% [markdown]
# ## 5. The model
#
# The pieces around your functions are given:
#
# * `Encoder`: an embedding and a one-layer GRU. Padded sentences are *packed*
#   (`pack_padded_sequence`) so that the GRU stops at each sentence's last real token:
#   the final state $h_S$ is the state after the last word, not after the padding.
# * `BahdanauAttention` / `LuongAttention`: modules that hold $W_1, W_2, v$ (or $W$) as
#   parameters and call your functions.
# * `Decoder.__init__`: an embedding (`embedding`), the attention module or `None`
#   (`attention`), a `GRUCell` fed with `[embedded previous token; context]` (`cell`), and
#   the output layer over `[new state; context; embedded previous token]` (`out`).
#
# You write `Decoder.step(prev_tokens, hidden, enc_outputs, enc_final, src_mask)`, one
# decoding step for a batch:
#
# 1. embed the previous tokens `(B,)` → `(B, E)`;
# 2. context: **with** attention, `self.attention(hidden, enc_outputs, src_mask)` (the
#    query is the *previous* state $s_{t-1}$, as in Bahdanau et al.); **without**
#    attention, the fixed vector `enc_final` $= h_S$ and weights `None`;
# 3. new state: `self.cell(cat([embedded, context]), hidden)`;
# 4. logits: `self.out(cat([new state, context, embedded]))`.
#
# Return `(logits (B, V), new hidden (B, H), weights (B, S) or None)`. The concatenation
# orders above are part of the contract. (Luong et al. query with the *new* state and
# combine afterwards; here both scores share one decoder so that only the score differs.)

# %%
class Encoder(nn.Module):
    """Embedding + one-layer GRU over the packed source; returns all states and the last one."""

    def __init__(self, vocab_size, emb_size, hidden_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)
        self.gru = nn.GRU(emb_size, hidden_size, batch_first=True)

    def forward(self, src):
        """src (B, S) -> enc_outputs (B, S, H) (zeros at padding), enc_final (B, H)."""
        lengths = (src != PAD).sum(dim=1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(self.embedding(src), lengths, batch_first=True,
                                                   enforce_sorted=False)
        outputs, final = self.gru(packed)  # final: (1, B, H), the state after each last real token
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True, total_length=src.shape[1])
        return outputs, final[0]


class BahdanauAttention(nn.Module):
    """Additive attention with learned W1 (A, H_dec), W2 (A, H_enc), v (A,)."""

    def __init__(self, dec_size, enc_size, attn_size):
        super().__init__()
        self.W1 = nn.Parameter(torch.randn(attn_size, dec_size) / math.sqrt(dec_size))
        self.W2 = nn.Parameter(torch.randn(attn_size, enc_size) / math.sqrt(enc_size))
        self.v = nn.Parameter(torch.randn(attn_size) / math.sqrt(attn_size))

    def forward(self, dec_hidden, enc_outputs, src_mask=None):
        return additive_attention(dec_hidden, enc_outputs, self.W1, self.W2, self.v, src_mask)


class LuongAttention(nn.Module):
    """Multiplicative ('general') attention with a learned W (H_dec, H_enc)."""

    def __init__(self, dec_size, enc_size):
        super().__init__()
        self.W = nn.Parameter(torch.randn(dec_size, enc_size) / math.sqrt(enc_size))

    def forward(self, dec_hidden, enc_outputs, src_mask=None):
        return multiplicative_attention(dec_hidden, enc_outputs, self.W, src_mask)


# %% [solution] id=decoder_step
class Decoder(nn.Module):
    """A GRU decoder that reads the source through attention (or through enc_final only)."""

    def __init__(self, vocab_size, emb_size, hidden_size, attention=None):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=PAD)
        if attention == "additive":
            self.attention = BahdanauAttention(hidden_size, hidden_size, hidden_size)
        elif attention == "multiplicative":
            self.attention = LuongAttention(hidden_size, hidden_size)
        else:
            self.attention = None  # the classic encoder-decoder: context = enc_final at every step
        self.cell = nn.GRUCell(emb_size + hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size + hidden_size + emb_size, vocab_size)

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        """One step: (B,) previous tokens, (B, H) state -> (logits (B, V), state (B, H), weights (B, S) or None)."""
        ### BEGIN SOLUTION
        embedded = self.embedding(prev_tokens)  # (B, E)
        if self.attention is None:
            context, weights = enc_final, None  # the bottleneck: the same vector at every step
        else:
            context, weights = self.attention(hidden, enc_outputs, src_mask)  # query: s_{t-1}
        hidden = self.cell(torch.cat([embedded, context], dim=-1), hidden)  # (B, H)
        logits = self.out(torch.cat([hidden, context, embedded], dim=-1))  # (B, V)
        return logits, hidden, weights
        ### END SOLUTION


# %%
toy_enc, toy_dec = Encoder(10, 4, 6), Decoder(12, 4, 6, attention="additive")
src = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0]])
enc_outputs, enc_final = toy_enc(src)
logits, hidden, weights = toy_dec.step(torch.tensor([BOS, BOS]), enc_final, enc_outputs, enc_final, src != PAD)
print("enc_outputs", tuple(enc_outputs.shape), "| logits", tuple(logits.shape), "| hidden", tuple(hidden.shape),
      "| weights", tuple(weights.shape))

# %% [test] id=test_decoder_step points=2
def set_params(module, seed):
    """Give every parameter values from a local generator, by name (independent of creation order)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(module.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)


check = Check("test_decoder_step")
gen = torch.Generator().manual_seed(31)
dec = Decoder(9, 4, 5, attention="additive")
set_params(dec, 0)
enc_out, enc_fin = torch.randn(2, 6, 5, generator=gen), torch.randn(2, 5, generator=gen)
src_mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
prev = torch.tensor([4, 7])
logits, hid, w = dec.step(prev, enc_fin, enc_out, enc_fin, src_mask)
check.equal("shapes", torch.tensor([*logits.shape, *hid.shape, *w.shape]), torch.tensor([2, 9, 2, 5, 2, 6]),
            hint="Return logits (B, V), the new hidden state (B, H) and the weights (B, S).")
other = enc_out.clone()
other[1, 3:] = 100.0  # change only the padded encoder states
check.true("ignores_padding", torch.allclose(dec.step(prev, enc_fin, other, enc_fin, src_mask)[0], logits, atol=1e-6),
           "The output changed when only padded encoder states changed: pass src_mask to the attention.")
plain = Decoder(9, 4, 5, attention=None)
set_params(plain, 1)
logits0, hid0, w0 = plain.step(prev, enc_fin, enc_out, enc_fin, src_mask)
check.true("no_attention_weights_none", w0 is None, "Without attention the weights are None.")
check.true("no_attention_uses_enc_final",
           torch.allclose(plain.step(prev, enc_fin, torch.randn(2, 6, 5, generator=gen), enc_fin, src_mask)[0], logits0),
           "Without attention the step must not read enc_outputs: its context is enc_final.")
### BEGIN HIDDEN TESTS
class OracleAttention(nn.Module):
    """Reference attention (so that this test does not depend on your attention functions)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, s, h, mask=None):
        if isinstance(self.inner, BahdanauAttention):
            e = torch.tanh((s @ self.inner.W1.T)[:, None] + h @ self.inner.W2.T) @ self.inner.v
        else:
            e = torch.einsum("bd,de,bse->bs", s, self.inner.W, h)
        if mask is not None:
            e = e.masked_fill(~mask, float("-inf"))
        w = e.softmax(-1)
        return torch.einsum("bs,bsh->bh", w, h), w


def step_ref(d, prev, hidden, enc_out, enc_fin, mask, context_mode="attention"):
    emb = d.embedding(prev)
    if d.attention is None:
        ctx, w = enc_fin, None
    else:
        ctx, w = d.attention(hidden, enc_out, mask)
    if context_mode == "zero":
        ctx = torch.zeros_like(ctx)
    new = d.cell(torch.cat([emb, ctx], -1), hidden)
    return d.out(torch.cat([new, ctx, emb], -1)), new, w


with torch.no_grad():
    for trial, (V, E, H, B, S, kind) in enumerate([(9, 4, 5, 2, 6, "additive"), (11, 3, 7, 3, 4, "additive"),
                                                   (8, 5, 6, 4, 5, None), (10, 4, 4, 2, 7, "multiplicative")]):
        d = Decoder(V, E, H, attention=kind)
        set_params(d, 10 + trial)
        if kind is not None:
            d.attention = OracleAttention(d.attention)
        prev = torch.randint(0, V, (B,), generator=gen)
        hidden = torch.randn(B, H, generator=gen)
        enc_out, enc_fin = torch.randn(B, S, H, generator=gen), torch.randn(B, H, generator=gen)
        mask = torch.arange(S)[None, :] < torch.randint(1, S + 1, (B,), generator=gen)[:, None]
        want = step_ref(d, prev, hidden, enc_out, enc_fin, mask)
        got = d.step(prev, hidden, enc_out, enc_fin, mask)
        check.close(f"hidden_logits_{trial}", got[0], want[0], atol=1e-5,
                    hint=f"attention={kind}: cell input [embedded; context], output layer on [new state; context; embedded].",
                    mistakes={"the context is not fed to the cell and output layer": step_ref(
                        d, prev, hidden, enc_out, enc_fin, mask, "zero")[0]})
        check.close(f"hidden_hidden_{trial}", got[1], want[1], atol=1e-5)
        if kind is not None:
            check.close(f"hidden_weights_{trial}", got[2], want[2], atol=1e-6,
                        hint="The query of the attention is the previous state (the hidden argument).")
### END HIDDEN TESTS
print("decoder step: ok")

# %% [markdown]
# ## 6. Teacher forcing, free running, scheduled sampling
#
# To train the decoder we unroll `step` over the target. What do we feed as the previous
# token at step $t$?
#
# * **Teacher forcing**: the *true* previous token $y_{t-1}$. Training is stable and
#   fast, because every step starts from a correct prefix.
# * **Free running**: the decoder's *own* previous prediction $\hat y_{t-1}$ (its
#   arg-max). This is what happens at inference time, when there is no reference.
#
# A model trained only with teacher forcing has never seen its own mistakes. At inference
# time one early error gives a prefix unlike anything in training, and errors compound.
# This train/test mismatch is **exposure bias** (Ranzato et al. 2016). **Scheduled
# sampling** (Bengio et al. 2015) mixes the two during training: at every step and for
# every sentence, feed the true token with probability $\epsilon_i$ and the model's own
# prediction otherwise, with $\epsilon_i$ decaying from 1 over training (linearly,
# exponentially, or as an inverse sigmoid $\epsilon_i = k / (k + e^{i/k})$).
#
# Implement `run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps,
# targets=None, teacher_forcing=1.0, generator=None)`:
#
# * the first input is `bos_id` for every sentence; the first state is `enc_final`;
# * call `decoder.step(...)` `steps` times, threading the state through;
# * after step $t$, the next input of each sentence is `targets[:, t]` with probability
#   `teacher_forcing` (draw with `torch.rand(B, generator=generator)` per step, on the CPU),
#   and otherwise the arg-max of the logits just produced (detached);
# * `teacher_forcing=1.0` is pure teacher forcing, `0.0` pure free running (`targets`
#   may then be `None`);
# * return `(logits (B, steps, V), weights (B, steps, S))`, or `(logits, None)` when the
#   decoder returns no weights.

# %% [solution] id=run_decoder
def run_decoder(decoder, enc_outputs, enc_final, src_mask, bos_id, steps, targets=None,
                teacher_forcing=1.0, generator=None):
    """Unroll decoder.step; next input = true token (prob. teacher_forcing) or own arg-max."""
    ### BEGIN SOLUTION
    B = enc_outputs.shape[0]
    prev = torch.full((B,), bos_id, dtype=torch.long, device=enc_outputs.device)  # (B,)
    hidden, all_logits, all_weights = enc_final, [], []
    for t in range(steps):
        logits, hidden, weights = decoder.step(prev, hidden, enc_outputs, enc_final, src_mask)
        all_logits.append(logits)
        all_weights.append(weights)
        own = logits.argmax(dim=-1).detach()  # (B,) the model's own guess
        if targets is not None and teacher_forcing > 0:
            use_truth = torch.rand(B, generator=generator) < teacher_forcing  # one coin per sentence
            prev = torch.where(use_truth.to(own.device), targets[:, t], own)
        else:
            prev = own
    weights = None if all_weights[0] is None else torch.stack(all_weights, dim=1)  # (B, steps, S)
    return torch.stack(all_logits, dim=1), weights  # (B, steps, V)
    ### END SOLUTION


# %%
logits, weights = run_decoder(toy_dec, enc_outputs, enc_final, src != PAD, BOS, steps=5,
                              targets=torch.tensor([[5, 6, 7, 2, 0], [8, 9, 2, 0, 0]]))
print("logits", tuple(logits.shape), "| weights", tuple(weights.shape))

# %% [test] id=test_run_decoder points=2
class RecordingDecoder:
    """A hand-built decoder: predicts (previous token + 1) mod V, records what it is fed."""

    def __init__(self, V=10, with_weights=True):
        self.V, self.with_weights, self.fed, self.states = V, with_weights, [], []

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        self.fed.append(prev_tokens.clone())
        self.states.append(hidden.clone())
        logits = F.one_hot((prev_tokens + 1) % self.V, self.V).float() * 3.0  # (B, V)
        weights = src_mask.float() / src_mask.sum(-1, keepdim=True) if self.with_weights else None
        return logits, hidden + 1.0, weights


check = Check("test_run_decoder")
enc_out, enc_fin = torch.zeros(2, 3, 4), torch.tensor([[0.0] * 4, [10.0] * 4])
mask = torch.tensor([[True, True, True], [True, False, False]])
targets = torch.tensor([[5, 6, 7, 2], [8, 2, 0, 0]])
rec = RecordingDecoder()
logits, weights = run_decoder(rec, enc_out, enc_fin, mask, 1, 4, targets, teacher_forcing=1.0)
check.close("teacher_forcing_inputs", torch.stack(rec.fed, 1).float(), torch.tensor([[1.0, 5, 6, 7], [1, 8, 2, 0]]),
            atol=0, rtol=0, hint="Teacher forcing: <bos>, then the true previous tokens targets[:, t - 1].",
            mistakes={"step t is fed targets[:, t], the token it must predict": torch.tensor([[5.0, 6, 7, 2], [8, 2, 0, 0]]),
                      "teacher_forcing=1 feeds the model's own predictions": torch.tensor([[1.0, 2, 3, 4], [1, 2, 3, 4]])})
check.close("states", torch.stack(rec.states, 1)[:, :, 0], torch.tensor([[0.0, 1, 2, 3], [10.0, 11, 12, 13]]),
            hint="The first state is enc_final; each step gets the state returned by the previous one.")
check.equal("shapes", torch.tensor([*logits.shape, *weights.shape]), torch.tensor([2, 4, 10, 2, 4, 3]))
rec = RecordingDecoder()
run_decoder(rec, enc_out, enc_fin, mask, 1, 4, targets, teacher_forcing=0.0)
check.close("free_running_inputs", torch.stack(rec.fed, 1).float(), torch.tensor([[1.0, 2, 3, 4], [1, 2, 3, 4]]),
            atol=0, rtol=0, hint="Free running: feed the arg-max of the previous logits.",
            mistakes={"teacher_forcing=0 still feeds the targets": torch.tensor([[1.0, 5, 6, 7], [1, 8, 2, 0]])})
### BEGIN HIDDEN TESTS
rec = RecordingDecoder(V=7, with_weights=False)
logits, weights = run_decoder(rec, torch.zeros(3, 5, 2), torch.zeros(3, 2), torch.ones(3, 5, dtype=torch.bool), 4, 6,
                              None, teacher_forcing=0.0)
check.true("hidden_weights_none", weights is None, "When the decoder returns no weights, return None for them.")
check.equal("hidden_free_running", torch.stack(rec.fed, 1), torch.tensor([[4, 5, 6, 0, 1, 2]] * 3))
check.close("hidden_logits", logits, F.one_hot(torch.tensor([[5, 6, 0, 1, 2, 3]] * 3), 7).float() * 3.0,
            hint="Stack the logits of the steps along dim 1: (B, steps, V).")
# scheduled sampling: every fed token is either the true previous token or the model's own guess
rec = RecordingDecoder(V=10)
targets = torch.tensor([[5, 9, 7, 3, 8, 2], [6, 6, 2, 0, 0, 0], [3, 4, 5, 6, 7, 2]])
run_decoder(rec, torch.zeros(3, 2, 4), torch.zeros(3, 4), torch.ones(3, 2, dtype=torch.bool), 1, 6, targets,
            teacher_forcing=0.5, generator=torch.Generator().manual_seed(0))
fed = torch.stack(rec.fed, 1)
own = (fed[:, :-1] + 1) % 10
ok = (fed[:, 0] == 1).all() and ((fed[:, 1:] == targets[:, :-1]) | (fed[:, 1:] == own)).all()
check.true("hidden_scheduled_sampling", ok, "With 0 < teacher_forcing < 1 every input must be the true previous token "
           "or the model's previous arg-max.")
rec = RecordingDecoder(V=10)
run_decoder(rec, torch.zeros(3, 2, 4), torch.zeros(3, 4), torch.ones(3, 2, dtype=torch.bool), 1, 6, targets,
            teacher_forcing=0.5, generator=torch.Generator().manual_seed(1))
fed = torch.stack(rec.fed, 1)
mixed = (fed[:, 1:] == targets[:, :-1]) & (fed[:, 1:] != (fed[:, :-1] + 1) % 10)
check.true("hidden_scheduled_mixes", bool(mixed.any()) and not bool(mixed.all()),
           "teacher_forcing=0.5 should feed some true tokens and some own predictions.")
### END HIDDEN TESTS
print("run_decoder: ok")

# %% [markdown]
# ## 7. Training three models
#
# Same encoder, same decoder, same data and budget; only the context differs:
#
# | model | context at step $t$ |
# |---|---|
# | no attention (Cho et al. 2014) | $c = h_S$, fixed |
# | additive attention (Bahdanau et al. 2015) | $c_t = \sum_j \alpha_{tj} h_j$, $e_{tj} = v^\top \tanh(W_1 s_{t-1} + W_2 h_j)$ |
# | multiplicative attention (Luong et al. 2015) | $c_t = \sum_j \alpha_{tj} h_j$, $e_{tj} = s_{t-1}^\top W h_j$ |
#
# All three train with teacher forcing, Adam and gradient clipping (RNNs need it), on
# batches of similar-length sentences.

# %%
class Seq2Seq(nn.Module):
    """Encoder + decoder; forward unrolls the decoder with run_decoder."""

    def __init__(self, src_vocab, tgt_vocab, emb_size=32, hidden_size=64, attention=None):
        super().__init__()
        self.encoder = Encoder(src_vocab, emb_size, hidden_size)
        self.decoder = Decoder(tgt_vocab, emb_size, hidden_size, attention)

    def forward(self, src, steps, targets=None, teacher_forcing=1.0, generator=None):
        enc_outputs, enc_final = self.encoder(src)
        return run_decoder(self.decoder, enc_outputs, enc_final, src != PAD, BOS, steps, targets,
                           teacher_forcing, generator)


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


def train(model, epochs, batch_size=128, lr=5e-3, teacher_forcing=1.0, desc=""):
    """Adam + clipping, token-level cross-entropy without padding; returns the loss per step."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rng, coin, losses = random.Random(0), torch.Generator().manual_seed(0), []
    n_batches = math.ceil(len(splits["train"]) / batch_size)
    bar = tqdm(total=epochs * n_batches, desc=desc, leave=False, mininterval=1.0)  # one bar, few updates
    for epoch in range(epochs):
        model.train()
        batches = make_batches(splits["train"], batch_size, rng)
        for src, tgt in batches:
            src, tgt = src.to(device), tgt.to(device)
            tf = teacher_forcing(epoch) if callable(teacher_forcing) else teacher_forcing
            logits, _ = model(src, tgt.shape[1], tgt, tf, coin)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
            bar.update()
        bar.set_postfix_str(f"epoch {epoch + 1}/{epochs}, loss {np.mean(losses[-len(batches):]):.3f}", refresh=False)
    bar.close()
    model.eval()
    return losses


EPOCHS = scaled(8, 1)
models, curves = {}, {}

# %%
# NBVAL_IGNORE_OUTPUT
start = time.time()
for kind in (None, "additive", "multiplicative"):
    name = kind or "no attention"
    seed_everything(0)
    models[name] = Seq2Seq(len(src_itos), len(tgt_itos), attention=kind).to(device)
    curves[name] = train(models[name], EPOCHS, desc=name)
    print(f"{name:>15}: final loss {np.mean(curves[name][-20:]):.3f}  ({time.time() - start:.0f} s so far)")

# %%
# NBVAL_IGNORE_OUTPUT
fig, ax = plt.subplots(figsize=(6, 3.2))
for name, losses in curves.items():
    ax.plot(np.convolve(losses, np.ones(10) / 10, mode="valid"), label=name)
ax.set(xlabel="step", ylabel="cross-entropy (teacher forcing)", title="training loss", yscale="log")
ax.legend()
plt.show()

# %% [markdown]
# ## 8. The bottleneck, measured
#
# We translate the test split and the long split by free running (greedy) and score
# **token accuracy**: the fraction of reference positions (including `<eos>`) that the
# output gets right. Sorting by source length shows where each model breaks.

# %%
@torch.no_grad()
def free_run(model, pairs, extra=5):
    """Greedy translations of the pairs: predicted ids (N, T_ref + extra) and references (N, T_ref)."""
    src = encode_batch([s for s, _ in pairs], src_stoi, add_eos=False).to(device)
    tgt = encode_batch([t for _, t in pairs], tgt_stoi, add_eos=True).to(device)
    logits, weights = model(src, tgt.shape[1] + extra, None, 0.0)
    return logits.argmax(-1).cpu(), tgt.cpu(), weights


def scores(pred, tgt):
    """Per sentence: token accuracy over the reference positions, and exact match."""
    real = tgt != PAD
    hits = (pred[:, : tgt.shape[1]] == tgt) & real
    token_acc = hits.sum(1).float() / real.sum(1)
    return token_acc, token_acc == 1.0


# %%
# NBVAL_IGNORE_OUTPUT
pairs = splits["test"] + splits["long"]
lengths = torch.tensor([len(s) for s, _ in pairs])
by_length, summary = {}, {}
for name, model in models.items():
    pred, tgt, _ = free_run(model, pairs)
    token_acc, exact = scores(pred, tgt)
    by_length[name] = {n: token_acc[lengths == n].mean().item() for n in sorted(set(lengths.tolist()))}
    test = lengths <= 16
    summary[name] = (token_acc[test].mean().item(), exact[test].float().mean().item(),
                     token_acc[~test].mean().item(), exact[~test].float().mean().item())
print(f"{'model':>15} | {'test token acc':>14} {'test exact':>10} | {'long token acc':>14} {'long exact':>10}")
for name, (ta, em, la, lem) in summary.items():
    print(f"{name:>15} | {ta:14.1%} {em:10.1%} | {la:14.1%} {lem:10.1%}")

fig, ax = plt.subplots(figsize=(7, 3.8))
for name, curve in by_length.items():
    counts = np.array([int((lengths == n).sum()) for n in curve])
    xs, ys = np.array(list(curve)), np.array(list(curve.values()))
    ax.plot(xs[counts >= 5], ys[counts >= 5], marker="o", label=name)
ax.axvline(16.5, color="grey", ls="--", lw=1)
ax.text(16.7, 0.05, "longer than any\ntraining sentence", fontsize=8, color="grey")
ax.set(xlabel="source length (tokens)", ylabel="token accuracy (free running)", ylim=(0, 1.02),
       title="the bottleneck: accuracy against sentence length")
ax.legend()
plt.show()
if not GRADING:
    short, long_ = by_length["no attention"][6], np.mean([by_length["no attention"][n] for n in (14, 15, 16)])
    print(f"no attention: {short:.0%} at 6 tokens, {long_:.0%} at 14-16 tokens")
    assert short - long_ > 0.2, "no bottleneck visible"
    assert summary["additive"][0] > summary["no attention"][0] + 0.15, "attention did not help"

# %% [markdown]
# Without attention, accuracy falls steadily with length, even well inside the training
# range: one 64-dimensional vector cannot hold a 16-word sentence *and* its word order.
# With attention the same model size translates long test sentences almost perfectly;
# past the training lengths every model degrades, attention ones much more gracefully.
#
# ## 9. Alignment
#
# The attention weights $\alpha_{tj}$ of the two attention models for one sentence: row
# $t$ is the target word being produced, column $j$ the source word. A monotonic
# translation would give a diagonal; here the fronted adverb (*aaj* ← *today*) sits in the
# last column of the first row, and nouns are read before their adjectives.

# %%
@torch.no_grad()
def translate(model, src_words, max_len=30):
    """Greedy translation of one sentence: (target words up to <eos>, attention weights (T, S) or None)."""
    src = encode_batch([src_words], src_stoi, add_eos=False).to(device)
    logits, weights = model(src, max_len, None, 0.0)
    ids = logits.argmax(-1)[0].tolist()
    n = ids.index(EOS) + 1 if EOS in ids else len(ids)
    return [tgt_itos[i] for i in ids[:n]], (None if weights is None else weights[0, :n].cpu())


# %%
# NBVAL_IGNORE_OUTPUT
src_words = "the old red dog chases a small cat in the green garden today".split()
fig, axes = plt.subplots(1, 2, figsize=(14, 6))
adverb_first = []
for ax, name in zip(axes, ("additive", "multiplicative")):
    out, weights = translate(models[name], src_words)
    adverb_first.append(src_words[int(weights[0].argmax())] == "today")
    print(f"{name:>15}:", " ".join(out))
    heatmap(weights, src_words, out, title=f"{name} attention: alignment", ax=ax)
    ax.set(xlabel="source word", ylabel="target word being produced")
fig.tight_layout()
plt.show()
print(f"{'no attention':>15}:", " ".join(translate(models["no attention"], src_words)[0]))
print("first target word reads 'today':", adverb_first)
assert GRADING or any(adverb_first), "no model reads the fronted adverb first"

# %% [markdown]
# Not every row is a clean word alignment. The query is the state *before* the word is
# produced, and an RNN can also carry information in its state (a verb read early and
# remembered needs no attention when it is finally written), so attention weights are a
# hint about alignment, not a proof of it (Jain & Wallace 2019). The same sentence without
# attention is printed below the maps: compare the nouns and adjectives.
#
# ## 10. Exposure bias, measured
#
# The same model, the same test sentences, two ways of feeding the decoder:
#
# * **teacher-forced accuracy**: predict each token given the *true* prefix (what training
#   optimises);
# * **free-running accuracy**: predict each token given the model's *own* prefix (what
#   inference does).
#
# The difference is the price of exposure bias: errors that only exist because the model
# is fed its own mistakes.

# %%
# NBVAL_IGNORE_OUTPUT
@torch.no_grad()
def exposure_gap(model, pairs):
    """Teacher-forced vs free-running token accuracy, overall and per target position."""
    src = encode_batch([s for s, _ in pairs], src_stoi, add_eos=False).to(device)
    tgt = encode_batch([t for _, t in pairs], tgt_stoi, add_eos=True).to(device)
    real = (tgt != PAD).cpu()
    out = {}
    for mode, tf in (("teacher-forced", 1.0), ("free-running", 0.0)):
        logits, _ = model(src, tgt.shape[1], tgt, tf)
        hits = (logits.argmax(-1).cpu() == tgt.cpu()) & real
        out[mode] = (hits.sum().item() / real.sum().item(), (hits.sum(0) / real.sum(0).clamp_min(1)).numpy())
    return out


gaps = {name: exposure_gap(model, splits["test"]) for name, model in models.items()}
print(f"{'model':>15} | {'teacher-forced':>14} {'free-running':>12} {'gap':>6}")
for name, g in gaps.items():
    tf_acc, fr_acc = g["teacher-forced"][0], g["free-running"][0]
    print(f"{name:>15} | {tf_acc:14.1%} {fr_acc:12.1%} {tf_acc - fr_acc:6.1%}")
fig, ax = plt.subplots(figsize=(6.5, 3.5))
for mode, style in (("teacher-forced", "-"), ("free-running", "--")):
    ax.plot(gaps["no attention"][mode][1], style, marker=".", label=f"no attention, {mode}")
ax.set(xlabel="target position", ylabel="token accuracy", title="exposure bias: errors compound along the output",
       ylim=(0, 1.02))
ax.legend()
plt.show()
if not GRADING:
    gap = gaps["no attention"]["teacher-forced"][0] - gaps["no attention"]["free-running"][0]
    assert gap > 0.05, "no exposure-bias gap measured"

# %% [markdown]
# With teacher forcing the no-attention model gets most tokens right at every position;
# left to itself, its accuracy decays along the sentence, because each wrong token makes
# the next prefix stranger. The attention models make fewer first mistakes, so their gap is
# smaller — but it is never zero.
#
# **Scheduled sampling** attacks the gap at training time. With `run_decoder` it is one
# argument: `teacher_forcing` below 1. Below, the no-attention model is trained again with
# the probability of the true token decaying from 1.0 to 0.5 over the epochs (the
# inverse-sigmoid schedule of Bengio et al. 2015 would decay it per step).

# %%
# NBVAL_IGNORE_OUTPUT
def schedule(epoch):
    """Probability of feeding the true token, from 1.0 at the first epoch down to 0.5."""
    return 1.0 - 0.5 * epoch / max(1, EPOCHS - 1)


print("teacher forcing per epoch:", [round(schedule(e), 2) for e in range(EPOCHS)])
seed_everything(0)
models_ss = Seq2Seq(len(src_itos), len(tgt_itos), attention=None).to(device)
train(models_ss, EPOCHS, teacher_forcing=schedule, desc="scheduled sampling")
g = exposure_gap(models_ss, splits["test"])
base = gaps["no attention"]
print(f"{'no attention':>28} | teacher-forced {base['teacher-forced'][0]:.1%}  free-running {base['free-running'][0]:.1%}")
print(f"{'+ scheduled sampling':>28} | teacher-forced {g['teacher-forced'][0]:.1%}  free-running {g['free-running'][0]:.1%}")

# %% [markdown]
# Compare the two rows. In our reference run scheduled sampling did **not** help: both
# accuracies went *down*, the gap did not shrink. Two reasons, both general:
#
# * every token fed from the model's own (often wrong) guesses is a token not learned from
#   a clean prefix, so with a fixed budget the model learns more slowly;
# * the objective is inconsistent (Huszár 2015): when the model's prefix has, say, skipped
#   an adjective, the target at the next position is still the reference token, which no
#   longer fits that prefix — the model is trained to make a *second* mistake. Reordering
#   makes this worse here, because one skipped word shifts every later position.
#
# Scheduled sampling helped the RNN systems of its time a little; later work found its gains
# modest, and the Transformer of notebook 07 still trains with pure teacher forcing. The
# real cure for *this* gap was attention, which makes the first mistakes rare (see the table
# above: 1–2 points instead of 14).
#
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
# * An RNN encoder–decoder squeezes the source into $c = h_S$; accuracy falls with length.
# * Attention recomputes a context $c_t = \sum_j \alpha_{tj} h_j$ at every step: additive
#   $v^\top\tanh(W_1 s + W_2 h_j)$ or multiplicative $s^\top W h_j$, padding masked out.
# * The attention weights are a soft alignment, and show the reordering.
# * Teacher forcing trains on true prefixes, inference runs on its own: exposure bias,
#   measured as the gap between the two accuracies; scheduled sampling narrows it.
#
# ## Exercises
#
# 1. **Bidirectional encoder.** Bahdanau et al. used a bidirectional RNN so that $h_j$
#    summarises the words on both sides of $j$. Make the encoder bidirectional (the
#    attention's `enc_size` doubles) and redraw the bottleneck plot.
# 2. **Hidden size.** Double the no-attention model's hidden size. How much of the
#    bottleneck does it buy back, and at what parameter cost?
# 3. **Luong's way.** Query with the *new* state $s_t$ and feed $\tilde h_t = \tanh(W_c[c_t; s_t])$
#    to the output layer (Luong et al. 2015, "input feeding"). Compare.
# 4. **Hard attention.** Replace the softmax by a one-hot arg-max at inference time only.
#    What happens to accuracy, and why can't you train it that way with backpropagation?
# 5. **Scheduled sampling, gently.** Decay the teacher-forcing probability only to 0.9, or
#    use it only in the last two epochs of a model trained with teacher forcing. Does the
#    free-running accuracy improve now?
# 6. **Scaled scores.** Divide the multiplicative scores by $\sqrt{H}$ and compare the
#    entropy of the weights early in training.
