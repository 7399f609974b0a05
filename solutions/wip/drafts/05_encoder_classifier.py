# %% [markdown]
# # 05 · A Transformer encoder classifier
#
# **Objectives.** By the end of this notebook you can
#
# 1. build the position-wise feed-forward network and say why it holds most of a
#    layer's parameters;
# 2. build a Transformer encoder block — self-attention and feed-forward, each with a
#    residual connection and LayerNorm — in both the **post-norm** (original paper) and
#    **pre-norm** placements, and prove it equals `nn.TransformerEncoderLayer` by loading
#    its weights;
# 3. pool a padded batch into one vector per sequence (a `[CLS]` token or a masked mean);
# 4. assemble a classifier (embeddings + positions + blocks + pooling + head) and train
#    it on CPU to ≥ 97% held-out accuracy on a task that needs word order;
# 5. batch by length (bucketing) and measure how much padding it saves;
# 6. run the diagnostics: logits unchanged when pad ids change, an attention map of a
#    trained head, CLS vs mean pooling, pre-norm vs post-norm.
#
# **How to work.** Fill in every cell that says `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run the toy call below it, then the visible test.
# Visible tests give points and say what is likely wrong; hidden tests check more
# (both norm placements, GELU, masks, other sizes) when your notebook is graded. Training
# cells are not graded: they use your components, so they only work once those pass.
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
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from workbook import GRADING, Check, heatmap, pick_device, scaled, seed_everything

seed_everything(0)
device = pick_device()
torch.set_printoptions(precision=4, sci_mode=False)
print("torch", torch.__version__, "| device:", device, "| grading mode:", GRADING)

# %% [markdown]
# ## 1. The encoder block
#
# One encoder layer of the Transformer has two **sublayers**: multi-head self-attention
# (every token looks at every other token) and a position-wise feed-forward network
# (every token is transformed on its own). Each sublayer is wrapped in a **residual
# connection** and a **LayerNorm**. The paper puts the norm *after* the residual add
# (**post-norm**); most modern models (GPT-2 onwards) put it *before* the sublayer
# (**pre-norm**):
#
# $$\text{post-norm:}\quad x \leftarrow \operatorname{LN}\big(x + \operatorname{Sublayer}(x)\big)
# \qquad\qquad \text{pre-norm:}\quad x \leftarrow x + \operatorname{Sublayer}\big(\operatorname{LN}(x)\big)$$
#
# Pre-norm keeps an untouched "residual highway" from input to output, so gradients
# reach early layers easily and deep stacks train without careful warm-up; post-norm
# normalises the highway itself. (LayerNorm, not BatchNorm: it normalises each token
# over its features, so it does not depend on the batch, the padding or the sequence
# length.)
#
# PyTorch ships this block as `nn.TransformerEncoderLayer(d_model, nhead,
# dim_feedforward, dropout, activation, batch_first, norm_first)`. You will rebuild it,
# with the same attribute names, so that its trained weights load into yours.
#
# ## 2. The feed-forward network
#
# $$\operatorname{FFN}(x) = W_2\, \operatorname{act}(W_1 x + b_1) + b_2, \qquad
# W_1 \in \mathbb{R}^{d_{ff} \times d_{model}},\; W_2 \in \mathbb{R}^{d_{model} \times d_{ff}}$$
#
# applied to every position separately, with $d_{ff} = 4\, d_{model}$ in the paper
# (2048 for $d_{model} = 512$) and `act` = ReLU (GELU in BERT and GPT; SwiGLU in LLaMA).
# Without the activation, the two linear layers would collapse into one.
#
# Implement `FeedForward(d_model, d_ff, dropout=0.1, activation="relu")`:
#
# * two `nn.Linear` layers, `d_model → d_ff` and `d_ff → d_model` (call them `linear1`
#   and `linear2`), and an `nn.Dropout(dropout)` applied after the activation;
# * `activation` is `"relu"` or `"gelu"` (exact GELU, `F.gelu`); anything else raises a
#   `ValueError` naming the activation;
# * `forward(x)` works on any `(..., d_model)` input.

# %% [solution] id=feedforward
class FeedForward(nn.Module):
    """Position-wise feed-forward network: linear2(dropout(act(linear1(x))))."""

    def __init__(self, d_model, d_ff, dropout=0.1, activation="relu"):
        super().__init__()
        ### BEGIN SOLUTION
        activations = {"relu": F.relu, "gelu": F.gelu}
        if activation not in activations:
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.activation = activations[activation]
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        return self.linear2(self.dropout(self.activation(self.linear1(x))))  # (..., d_model)
        ### END SOLUTION


# %%
ffn = FeedForward(8, 32)
print("output", tuple(ffn(torch.randn(2, 5, 8)).shape))
# The paper's base layer: how the parameters split between attention and feed-forward
d_model, d_ff = 512, 2048
attention_params = 4 * d_model * d_model + 4 * d_model  # W_Q, W_K, W_V, W_O and their biases
ffn_params = sum(p.numel() for p in FeedForward(d_model, d_ff).parameters())
norm_params = 2 * 2 * d_model
total = attention_params + ffn_params + norm_params
print(f"base layer: attention {attention_params:,}, feed-forward {ffn_params:,}, norms {norm_params:,}")
print(f"feed-forward share of the layer: {ffn_params / total:.1%}  (about two thirds)")

# %% [test] id=test_feedforward points=2
check = Check("test_feedforward")


def load_ffn(ffn, d_model, d_ff, W1, b1, W2, b2):
    """Copy the given weights into the two nn.Linear layers of `ffn`; False if there are not exactly these two."""
    linears = [m for m in ffn.modules() if isinstance(m, nn.Linear)]
    first = [m for m in linears if (m.in_features, m.out_features) == (d_model, d_ff)]
    second = [m for m in linears if (m.in_features, m.out_features) == (d_ff, d_model)]
    n_params = sum(p.numel() for p in ffn.parameters())
    if len(linears) != 2 or len(first) != 1 or len(second) != 1 or n_params != 2 * d_model * d_ff + d_ff + d_model:
        return False
    with torch.no_grad():
        first[0].weight.copy_(W1), first[0].bias.copy_(b1), second[0].weight.copy_(W2), second[0].bias.copy_(b2)
    return True


ffn = FeedForward(2, 3, dropout=0.0).eval()
W1, b1 = torch.tensor([[1.0, -1.0], [0.0, 2.0], [-1.0, 0.5]]), torch.tensor([0.0, -1.0, 0.5])
W2, b2 = torch.tensor([[1.0, 0.0, 2.0], [-1.0, 1.0, 0.0]]), torch.tensor([0.1, -0.2])
check.true("two_linear_layers", load_ffn(ffn, 2, 3, W1, b1, W2, b2),
           "FeedForward(d_model, d_ff) must hold exactly two nn.Linear layers, d_model→d_ff and d_ff→d_model (with biases).")
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
check.close("relu_example", ffn(x), torch.tensor([[1.1, 2.8], [3.6, -0.2]]), atol=1e-5,
            mistakes={"the FFN has no activation between linear1 and linear2": torch.tensor([[0.1, 3.8], [2.1, 1.3]])},
            hint="FFN(x) = linear2(relu(linear1(x))).")
check.raises("bad_activation", ValueError, lambda: FeedForward(4, 8, activation="tanh"), match="tanh")
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(20)
for trial, (shape, d, dff, act) in enumerate([((3, 5), 6, 10, "relu"), ((2, 4, 7), 8, 32, "gelu"), ((4,), 5, 3, "gelu")]):
    W1, b1 = torch.randn(dff, d, generator=gen), torch.randn(dff, generator=gen)
    W2, b2 = torch.randn(d, dff, generator=gen), torch.randn(d, generator=gen)
    ffn = FeedForward(d, dff, dropout=0.2, activation=act).eval()
    check.true(f"hidden_linears_{trial}", load_ffn(ffn, d, dff, W1, b1, W2, b2),
               "FeedForward must hold exactly two nn.Linear layers, d_model→d_ff and d_ff→d_model.")
    x = torch.randn(*shape, d, generator=gen)
    hidden = F.linear(x, W1, b1)
    act_fn = F.relu if act == "relu" else F.gelu
    check.close(f"hidden_{trial}", ffn(x), F.linear(act_fn(hidden), W2, b2), atol=1e-4,
                mistakes={"the FFN has no activation between linear1 and linear2": F.linear(hidden, W2, b2),
                          "ReLU used where GELU was asked for": F.linear(F.relu(hidden), W2, b2),
                          "GELU with the tanh approximation (use exact F.gelu)": F.linear(F.gelu(hidden, approximate="tanh"), W2, b2)},
                hint=f"activation={act!r}, input shape {tuple(x.shape)}; dropout is off in eval mode.")
### END HIDDEN TESTS
print("FeedForward: ok")

# %% [markdown]
# ## 3. The encoder block
#
# Implement `TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=0.1,
# activation="relu", norm_first=False)`, batch-first, to match
# `nn.TransformerEncoderLayer(batch_first=True)` exactly:
#
# * attributes **`self_attn`** (given: an `nn.MultiheadAttention(batch_first=True)`),
#   **`linear1`**, **`linear2`** (the feed-forward layers, directly on the block — not
#   inside a `FeedForward` submodule, or the state-dict names would not match),
#   **`norm1`**, **`norm2`** (`nn.LayerNorm(d_model)`), and no other parameters; dropouts
#   (no parameters) after the attention, inside the FFN and after the FFN;
# * `forward(x, key_padding_mask=None, attn_mask=None)`: `x` is `(B, L, d_model)`;
#   the masks use PyTorch's conventions (`key_padding_mask` `(B, L)`, True = padding;
#   `attn_mask` `(L, L)`, bool True = blocked or float additive) and go straight to
#   `self_attn(x, x, x, key_padding_mask=..., attn_mask=..., need_weights=False)`;
# * post-norm: `x = norm1(x + sa(x))`, then `x = norm2(x + ffn(x))`;
#   pre-norm (`norm_first=True`): `x = x + sa(norm1(x))`, then `x = x + ffn(norm2(x))`.

# %% [solution] id=encoder_block
class TransformerEncoderBlock(nn.Module):
    """Self-attention and feed-forward sublayers with residuals and LayerNorm (post- or pre-norm)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, activation="relu", norm_first=False):
        super().__init__()
        # Given: PyTorch's attention, so that nn.TransformerEncoderLayer weights load into this block.
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout=dropout, batch_first=True)
        ### BEGIN SOLUTION
        activations = {"relu": F.relu, "gelu": F.gelu}
        if activation not in activations:
            raise ValueError(f"activation must be 'relu' or 'gelu', got {activation!r}")
        self.activation = activations[activation]
        self.norm_first = norm_first
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)  # inside the FFN
        self.dropout1 = nn.Dropout(dropout)  # on the attention output
        self.dropout2 = nn.Dropout(dropout)  # on the FFN output
        ### END SOLUTION

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        ### BEGIN SOLUTION
        def attention(h):  # (B, L, d_model) -> (B, L, d_model)
            out = self.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                                 need_weights=False)[0]
            return self.dropout1(out)

        def feed_forward(h):  # (B, L, d_model) -> (B, L, d_model)
            return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(h)))))

        if self.norm_first:  # pre-norm: the residual stream itself is never normalised
            x = x + attention(self.norm1(x))
            x = x + feed_forward(self.norm2(x))
        else:  # post-norm (the paper): normalise after each residual add
            x = self.norm1(x + attention(x))
            x = self.norm2(x + feed_forward(x))
        return x
        ### END SOLUTION


# %%
block = TransformerEncoderBlock(16, 4, 32)
x = torch.randn(2, 5, 16)
padding = torch.tensor([[False] * 5, [False, False, False, True, True]])  # second sequence: 3 tokens + 2 pads
print("output", tuple(block(x, key_padding_mask=padding).shape))
print("parameter names:", sorted({name.split(".")[0] for name, _ in block.named_parameters()}))

# %% [test] id=test_encoder_block_post points=3
check = Check("test_encoder_block_post")


def oracle_layer(seed, d_model, num_heads, d_ff, activation="relu", norm_first=False):
    """An nn.TransformerEncoderLayer with seeded weights and non-trivial LayerNorm parameters, in eval mode."""
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout=0.1, activation=activation,
                                       batch_first=True, norm_first=norm_first)
    with torch.no_grad():
        for norm in (layer.norm1, layer.norm2):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.5, 0.5)
    return layer.eval()


def block_like(layer, d_model, num_heads, d_ff, activation="relu", norm_first=False):
    """Your block with the layer's weights loaded (None if the state_dict does not fit)."""
    block = TransformerEncoderBlock(d_model, num_heads, d_ff, dropout=0.1, activation=activation, norm_first=norm_first)
    try:
        block.load_state_dict(layer.state_dict())
    except RuntimeError:
        return None
    return block.eval()


### BEGIN HIDDEN TESTS
def _block_variant(layer, x, padding=None, attn_mask=None, norm_first=False, act=F.relu, mistake=None):
    """The layer's computation, or one of the classic wrong ones."""
    def sa(h):
        kpm = None if mistake == "no_padding_mask" else padding
        return layer.self_attn(h, h, h, key_padding_mask=kpm, attn_mask=attn_mask, need_weights=False)[0]

    def ff(h):
        hidden = layer.linear1(h)
        return layer.linear2(hidden if mistake == "no_activation" else act(hidden))

    keep = 0.0 if mistake == "no_ffn_residual" else 1.0
    if norm_first:
        if mistake == "adds_normalised":
            h = layer.norm1(x)
            x = h + sa(h)
            h = layer.norm2(x)
            return h + ff(h)
        x = x + sa(layer.norm1(x))
        return keep * x + ff(layer.norm2(x))
    if mistake == "norm_before_add":
        x = x + layer.norm1(sa(x))
        return x + layer.norm2(ff(x))
    x = layer.norm1(x + sa(x))
    return layer.norm2(keep * x + ff(x))


def _block_mistakes(layer, x, padding=None, attn_mask=None, norm_first=False, act=F.relu):
    with torch.no_grad():
        named = {
            "the FFN has no activation between linear1 and linear2": "no_activation",
            "the residual connection around the feed-forward sublayer is missing": "no_ffn_residual",
            "post-norm applied before the residual add (x + norm(sublayer(x)) instead of norm(x + sublayer(x)))": "norm_before_add",
            "pre-norm that adds the normalised x (norm(x) + sublayer(norm(x)) instead of x + sublayer(norm(x)))": "adds_normalised",
        }
        out = {text: _block_variant(layer, x, padding, attn_mask, norm_first, act, m) for text, m in named.items()}
        if padding is not None:
            out["the padding mask is ignored (padded keys receive attention)"] = _block_variant(
                layer, x, padding, attn_mask, norm_first, act, "no_padding_mask")
        out["norm_first is ignored (" + ("post-norm computed instead of pre-norm)" if norm_first else "pre-norm computed instead of post-norm)")] = \
            _block_variant(layer, x, padding, attn_mask, not norm_first, act)
        if act is F.gelu:
            out["ReLU used where GELU was asked for"] = _block_variant(layer, x, padding, attn_mask, norm_first, F.relu)
    return out


### END HIDDEN TESTS
mistakes = {}  # the graded version names the classic mistakes here
gen = torch.Generator().manual_seed(21)
layer = oracle_layer(0, 16, 4, 32)
block = block_like(layer, 16, 4, 32)
check.true("loads_state_dict", block is not None,
           "nn.TransformerEncoderLayer's state_dict must load: use the attribute names self_attn, linear1, linear2, "
           "norm1, norm2 and no other parameters.")
x = torch.randn(3, 6, 16, generator=gen)
padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2, [False] + [True] * 5])
want = layer(x, src_key_padding_mask=padding)
### BEGIN HIDDEN TESTS
mistakes = _block_mistakes(layer, x, padding)
### END HIDDEN TESTS
check.close("post_norm_padding", block(x, key_padding_mask=padding), want, atol=1e-5, mistakes=mistakes,
            hint="post-norm: x = norm1(x + attention(x)); x = norm2(x + ffn(x)); pass key_padding_mask to self_attn.")
### BEGIN HIDDEN TESTS
causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)  # True = blocked
additive = torch.zeros(5, 5).masked_fill(torch.rand(5, 5, generator=gen) > 0.7, float("-inf")).fill_diagonal_(0.0)
cases = [
    # (seed, d_model, heads, d_ff, activation, batch, length, padding?, attn_mask)
    (1, 16, 4, 32, "relu", 3, 6, False, None),
    (2, 16, 2, 48, "relu", 3, 6, True, causal),
    (3, 12, 3, 20, "gelu", 2, 5, True, None),
    (4, 8, 1, 16, "gelu", 4, 5, False, additive),
]
for trial, (seed, d, h, dff, act, B, L, pad, attn_mask) in enumerate(cases):
    layer = oracle_layer(seed, d, h, dff, act)
    block = block_like(layer, d, h, dff, act)
    check.true(f"hidden_loads_{trial}", block is not None, "the state_dict of nn.TransformerEncoderLayer must load.")
    x = torch.randn(B, L, d, generator=gen)
    padding = None
    if pad:
        padding = torch.zeros(B, L, dtype=torch.bool)
        padding[1:, L - 2:] = True
    want = layer(x, src_mask=attn_mask, src_key_padding_mask=padding)
    got = block(x, key_padding_mask=padding, attn_mask=attn_mask)
    check.close(f"hidden_post_{trial}", got, want, atol=1e-5,
                mistakes=_block_mistakes(layer, x, padding, attn_mask, False, F.gelu if act == "gelu" else F.relu),
                hint=f"post-norm, activation={act}, padding={pad}, attn_mask={'none' if attn_mask is None else attn_mask.dtype}.")
### END HIDDEN TESTS
print("post-norm block matches nn.TransformerEncoderLayer: ok")

# %% [test] id=test_encoder_block_pre points=2
check = Check("test_encoder_block_pre")
mistakes = {}  # the graded version names the classic mistakes here
gen = torch.Generator().manual_seed(22)
layer = oracle_layer(5, 16, 4, 32, norm_first=True)
block = block_like(layer, 16, 4, 32, norm_first=True)
check.true("loads_state_dict", block is not None,
           "nn.TransformerEncoderLayer's state_dict must load: use the attribute names self_attn, linear1, linear2, "
           "norm1, norm2 and no other parameters.")
x = torch.randn(2, 7, 16, generator=gen)
padding = torch.tensor([[False] * 7, [False] * 3 + [True] * 4])
want = layer(x, src_key_padding_mask=padding)
### BEGIN HIDDEN TESTS
mistakes = _block_mistakes(layer, x, padding, norm_first=True)
### END HIDDEN TESTS
check.close("pre_norm_padding", block(x, key_padding_mask=padding), want, atol=1e-5, mistakes=mistakes,
            hint="pre-norm: x = x + attention(norm1(x)); x = x + ffn(norm2(x)).")
### BEGIN HIDDEN TESTS
for trial, (seed, d, h, dff, act, B, L) in enumerate([(6, 16, 4, 64, "gelu", 3, 5), (7, 10, 2, 12, "relu", 2, 8)]):
    layer = oracle_layer(seed, d, h, dff, act, norm_first=True)
    block = block_like(layer, d, h, dff, act, norm_first=True)
    check.true(f"hidden_loads_{trial}", block is not None, "the state_dict of nn.TransformerEncoderLayer must load.")
    x = torch.randn(B, L, d, generator=gen)
    padding = torch.zeros(B, L, dtype=torch.bool)
    padding[0, L - 1:] = True
    causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
    want = layer(x, src_mask=causal, src_key_padding_mask=padding)
    check.close(f"hidden_pre_{trial}", block(x, key_padding_mask=padding, attn_mask=causal), want, atol=1e-5,
                mistakes=_block_mistakes(layer, x, padding, causal, True, F.gelu if act == "gelu" else F.relu),
                hint=f"pre-norm, activation={act}, padding and causal mask.")
check.raises("hidden_bad_activation", ValueError, lambda: TransformerEncoderBlock(8, 2, 16, activation="swish"))
### END HIDDEN TESTS
print("pre-norm block matches nn.TransformerEncoderLayer: ok")

# %% [markdown]
# ## 4. From a sequence of vectors to one vector
#
# A classifier needs one vector per sequence. Two standard choices:
#
# * **`[CLS]` pooling** (BERT): prepend a learned vector to every sequence and read its
#   output. Through attention it can gather whatever the task needs, from any position.
# * **Masked mean pooling**: average the outputs of the *real* tokens,
#   $\bar{x} = \frac{\sum_t m_t x_t}{\sum_t m_t}$ with $m_t = 1$ for real tokens and 0
#   for padding. Dividing by the full length $L$ instead would make the result depend on
#   how much padding the batch happened to need.
#
# Implement `masked_mean_pool(x, key_padding_mask)`: `x` is `(B, L, E)`,
# `key_padding_mask` is `(B, L)` with True = padding; return `(B, E)`, the mean over the
# non-padding positions. A row that is all padding returns zeros (never NaN).

# %% [solution] id=masked_mean_pool
def masked_mean_pool(x, key_padding_mask):
    """Mean of x (B, L, E) over the positions where key_padding_mask (B, L) is False."""
    ### BEGIN SOLUTION
    keep = (~key_padding_mask).unsqueeze(-1).to(x.dtype)  # (B, L, 1): 1 for real tokens
    total = (x * keep).sum(dim=1)  # (B, E)
    count = keep.sum(dim=1).clamp(min=1.0)  # (B, 1); an all-padding row divides 0 by 1
    return total / count
    ### END SOLUTION


# %%
x = torch.arange(12.0).reshape(2, 3, 2)  # (B=2, L=3, E=2)
padding = torch.tensor([[False, False, True], [False, True, True]])
print(x)
print("masked mean:\n", masked_mean_pool(x, padding))

# %% [test] id=test_masked_mean_pool points=2
check = Check("test_masked_mean_pool")
x = torch.tensor([[[1.0, 2.0], [3.0, 6.0], [100.0, -100.0]],
                  [[4.0, -2.0], [50.0, 50.0], [70.0, 70.0]]])  # (2, 3, 2); large values sit on padding
padding = torch.tensor([[False, False, True], [False, True, True]])
check.close("example", masked_mean_pool(x, padding), torch.tensor([[2.0, 4.0], [4.0, -2.0]]),
            mistakes={"divides by the full length L instead of the number of real tokens": torch.tensor([[4.0 / 3, 8.0 / 3], [4.0 / 3, -2.0 / 3]]),
                      "averages over every position, padding included": x.mean(1),
                      "returns the last position (padding for shorter sequences) instead of the mean": x[:, -1],
                      "the mask is inverted (averages the padding)": torch.tensor([[100.0, -100.0], [60.0, 60.0]])},
            hint="sum the real tokens (key_padding_mask False) and divide by how many there are.")
### BEGIN HIDDEN TESTS
gen = torch.Generator().manual_seed(23)
for trial, (B, L, E, dtype) in enumerate([(4, 7, 5, torch.float32), (3, 1, 2, torch.float32), (2, 9, 3, torch.float64)]):
    x = torch.randn(B, L, E, generator=gen, dtype=dtype)
    lengths = torch.randint(1, L + 1, (B,), generator=gen)
    padding = torch.arange(L)[None, :] >= lengths[:, None]
    keep = (~padding).unsqueeze(-1).to(dtype)
    want = (x * keep).sum(1) / lengths[:, None].to(dtype)
    got = masked_mean_pool(x, padding)
    check.close(f"hidden_{trial}", got, want, atol=1e-6,
                mistakes={"divides by the full length L instead of the number of real tokens": (x * keep).sum(1) / L,
                          "averages over every position, padding included": x.mean(1),
                          "returns the last position instead of the mean": x[:, -1]},
                hint=f"B={B}, L={L}, E={E}, lengths {lengths.tolist()}.")
    check.true(f"hidden_dtype_{trial}", got.dtype == dtype, "keep the dtype of x.")
x = torch.randn(3, 4, 2, generator=gen)
padding = torch.tensor([[False, True, True, True], [True, True, True, True], [False, False, False, False]])
got = masked_mean_pool(x, padding)
check.true("hidden_all_padding_no_nan", not torch.isnan(got).any(), "an all-padding row must give zeros, not NaN (0/0).")
check.close("hidden_all_padding", got, torch.stack([x[0, 0], torch.zeros(2), x[2].mean(0)]), atol=1e-6)
xg = torch.randn(2, 3, 2, generator=gen, requires_grad=True)
masked_mean_pool(xg, torch.tensor([[False, False, True], [False, True, True]])).sum().backward()
check.close("hidden_grad", xg.grad, torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])[..., None].expand(2, 3, 2),
            hint="gradients must flow to the real tokens only.")
### END HIDDEN TESTS
print("masked_mean_pool: ok")

# %% [markdown]
# ## 5. The classifier
#
# Implement `TransformerClassifier(vocab_size, num_classes, d_model=64, num_heads=4,
# d_ff=128, num_layers=2, max_len=64, pad_id=0, dropout=0.1, pooling="cls",
# norm_first=False)`:
#
# 1. token embedding `nn.Embedding(vocab_size, d_model)`;
# 2. with `pooling="cls"`: prepend a learned `[CLS]` vector (an `nn.Parameter` of shape
#    `(1, 1, d_model)`) to every sequence, and a `False` column to the padding mask;
# 3. add a learned position embedding (positions `0 … L-1` of the sequence the blocks
#    see, `[CLS]` included; size the table for `max_len` tokens plus the `[CLS]`);
#    dropout;
# 4. `num_layers` of your `TransformerEncoderBlock`s, each given the padding mask
#    (with `norm_first=True`, add a final `nn.LayerNorm`, as pre-norm stacks do);
# 5. pool: the `[CLS]` output (`pooling="cls"`) or `masked_mean_pool` over the real
#    tokens (`pooling="mean"`); any other value raises a `ValueError` naming `pooling`;
# 6. a linear head `d_model → num_classes`.
#
# `forward(token_ids, key_padding_mask=None)` takes `(B, L)` ids and returns `(B,
# num_classes)` logits; when no mask is given it is `token_ids == pad_id`. A correct model
# ignores padding completely: its logits do not change when the pad ids change, when
# more padding is appended, or when a sequence is batched with longer ones.

# %% [solution] id=classifier
class TransformerClassifier(nn.Module):
    """Token + position embeddings, encoder blocks, CLS or masked-mean pooling, linear head."""

    def __init__(self, vocab_size, num_classes, d_model=64, num_heads=4, d_ff=128, num_layers=2,
                 max_len=64, pad_id=0, dropout=0.1, pooling="cls", norm_first=False):
        super().__init__()
        ### BEGIN SOLUTION
        if pooling not in ("cls", "mean"):
            raise ValueError(f"pooling must be 'cls' or 'mean', got pooling={pooling!r}")
        self.pooling, self.pad_id, self.max_len = pooling, pad_id, max_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_len + 1, d_model)  # +1: the [CLS] position
        self.cls_token = nn.Parameter(torch.randn(1, 1, d_model) * 0.02)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(
            TransformerEncoderBlock(d_model, num_heads, d_ff, dropout, norm_first=norm_first)
            for _ in range(num_layers)
        )
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.head = nn.Linear(d_model, num_classes)
        ### END SOLUTION

    def forward(self, token_ids, key_padding_mask=None):
        ### BEGIN SOLUTION
        if key_padding_mask is None:
            key_padding_mask = token_ids == self.pad_id  # (B, L), True = padding
        batch, length = token_ids.shape
        if length > self.max_len:
            raise ValueError(f"sequence length {length} exceeds max_len={self.max_len}")
        x = self.token_embedding(token_ids)  # (B, L, E)
        if self.pooling == "cls":
            x = torch.cat([self.cls_token.expand(batch, -1, -1), x], dim=1)  # (B, 1 + L, E)
            key_padding_mask = torch.cat([key_padding_mask.new_zeros(batch, 1), key_padding_mask], dim=1)
        positions = torch.arange(x.shape[1], device=x.device)
        x = self.dropout(x + self.position_embedding(positions))
        for block in self.blocks:
            x = block(x, key_padding_mask=key_padding_mask)
        x = self.final_norm(x)
        pooled = x[:, 0] if self.pooling == "cls" else masked_mean_pool(x, key_padding_mask)  # (B, E)
        return self.head(pooled)  # (B, num_classes)
        ### END SOLUTION


# %% [markdown]
# Toy call, the seed's example 4: a batch of 4 sequences of 16 token ids from a
# vocabulary of 1000, classified into 3 classes.

# %%
torch.manual_seed(0)
model = TransformerClassifier(vocab_size=1000, num_classes=3, d_model=64, num_heads=4, d_ff=128, num_layers=2)
token_ids = torch.randint(1, 1000, (4, 16))
logits = model(token_ids)
print("logits", tuple(logits.shape))  # (4, 3): one score per class for each sequence
print("parameters:", f"{sum(p.numel() for p in model.parameters()):,}")

# %% [test] id=test_classifier points=3
check = Check("test_classifier")
gen = torch.Generator().manual_seed(24)
torch.manual_seed(0)
model = TransformerClassifier(vocab_size=1000, num_classes=3).eval()
check.equal("seed_example_4_shape", torch.tensor(model(torch.randint(1, 1000, (4, 16), generator=gen)).shape),
            torch.tensor([4, 3]))
check.raises("bad_pooling", ValueError, lambda: TransformerClassifier(10, 2, d_model=8, num_heads=2, d_ff=16, pooling="max"),
             match="pooling")
for pooling in ("cls", "mean"):
    torch.manual_seed(1)
    model = TransformerClassifier(50, 4, d_model=16, num_heads=2, d_ff=32, num_layers=2, max_len=32, pooling=pooling).eval()
    ids = torch.randint(1, 50, (3, 9), generator=gen)
    ids[1, 5:], ids[2, 2:] = 0, 0  # lengths 9, 5, 2
    padding = ids == 0
    with torch.no_grad():
        base = model(ids)
        other_pads = torch.where(padding, torch.randint(1, 50, (3, 9), generator=gen), ids)
        longer = torch.cat([ids, torch.zeros(3, 4, dtype=torch.long)], dim=1)
        check.true(f"{pooling}_pad_ids_ignored", torch.allclose(model(other_pads, padding), base, atol=1e-5),
                   f"pooling={pooling!r}: the logits changed when only the ids at padded positions changed, so the model "
                   "looks at padding: pass the padding mask to every block, and pool only real tokens (or [CLS]) "
                   "- not the last position, which is padding.")
        check.true(f"{pooling}_extra_padding_ignored", torch.allclose(model(longer), base, atol=1e-5),
                   f"pooling={pooling!r}: appending more padding changed the logits: the pooling or the positions "
                   "depend on the padded length.")
        check.true(f"{pooling}_batch_independent", torch.allclose(model(ids[2:, :2]), base[2:], atol=1e-5),
                   f"pooling={pooling!r}: a sequence alone must get the same logits as inside a padded batch.")
        check.true(f"{pooling}_uses_positions", not torch.allclose(model(ids[:1].flip(1)), base[:1], atol=1e-4),
                   f"pooling={pooling!r}: reversing a sequence did not change the logits: add position embeddings.")
### BEGIN HIDDEN TESTS
for pooling, norm_first in (("cls", True), ("mean", True)):
    torch.manual_seed(2)
    model = TransformerClassifier(30, 2, d_model=12, num_heads=3, d_ff=24, num_layers=3, max_len=16, pad_id=29,
                                  pooling=pooling, norm_first=norm_first).eval()
    ids = torch.randint(0, 29, (4, 12), generator=gen)
    for row, n in enumerate([12, 7, 3, 1]):
        ids[row, n:] = 29
    with torch.no_grad():
        base = model(ids)
        check.true(f"hidden_{pooling}_shape", base.shape == (4, 2), "logits must have shape (B, num_classes).")
        padding = ids == 29
        other_pads = torch.where(padding, torch.randint(0, 29, (4, 12), generator=gen), ids)
        check.true(f"hidden_{pooling}_pad_id", torch.allclose(model(other_pads, padding), base, atol=1e-5),
                   f"pooling={pooling!r}, pad_id=29: the logits changed when the pad ids changed (is pad_id used for the default mask?).")
        check.true(f"hidden_{pooling}_alone", torch.allclose(model(ids[3:, :1]), base[3:], atol=1e-5),
                   f"pooling={pooling!r}: a one-token sequence alone must get the same logits as in the batch.")
### END HIDDEN TESTS
print("TransformerClassifier: ok")

# %% [markdown]
# ## 6. A task that needs attention *and* word order
#
# Each sentence of our toy language is a run of filler words (`the`, `big`, `bites`,
# `quickly`, ...) in which two or three of the nouns **dog**, **man**, **cat** appear, each
# once. The label is the noun that comes **first** — the one that "does the biting" in
# *dog bites man*. Lengths vary from 4 to 24 words, so batches need padding.
#
# A bag of words knows which nouns occur but not in which order: with two nouns it can
# only guess between them, with three between all three. The best any bag-of-words model
# can do is therefore $\frac12 \cdot \frac12 + \frac12 \cdot \frac13 \approx 42\%$. A
# model must find the nouns (attention) and compare where they are (positions).
#
# The data are generated here, deterministically from a seed (train / validation / test
# use different seeds).

# %%
NOUNS = ["dog", "man", "cat"]
FILLERS = ["the", "a", "big", "small", "old", "young", "angry", "happy", "bites", "sees",
           "chases", "likes", "near", "today", "quickly", "never"]
VOCAB = ["<pad>"] + NOUNS + FILLERS
PAD_ID = 0
MIN_LEN, MAX_LEN = 4, 24
LENGTHS = np.arange(MIN_LEN, MAX_LEN + 1)
LENGTH_PROBS = np.exp(-((np.log(LENGTHS) - np.log(10)) ** 2) / (2 * 0.45**2)) / LENGTHS  # log-normal around 10
LENGTH_PROBS /= LENGTH_PROBS.sum()


def make_first_noun_data(n, seed):
    """n sentences: token ids (n, MAX_LEN) padded with PAD_ID, lengths (n,), labels (n,) = first noun."""
    rng = np.random.default_rng(seed)
    ids = np.full((n, MAX_LEN), PAD_ID, dtype=np.int64)
    lengths = rng.choice(LENGTHS, size=n, p=LENGTH_PROBS)
    labels = np.empty(n, dtype=np.int64)
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(1 + len(NOUNS), len(VOCAB), size=length)  # fillers
        nouns = rng.permutation(len(NOUNS))[: rng.integers(2, 4)]  # 2 or 3 different nouns
        slots = np.sort(rng.choice(length, size=len(nouns), replace=False))
        ids[row, slots] = 1 + nouns  # noun k has id 1 + k
        labels[row] = nouns[0]  # the noun in the earliest slot
    return torch.from_numpy(ids), torch.from_numpy(lengths), torch.from_numpy(labels)


def decode(ids):
    """The words of one sentence, padding dropped."""
    return " ".join(VOCAB[i] for i in ids.tolist() if i != PAD_ID)


splits = {
    "train": make_first_noun_data(scaled(4000, 256), seed=1),
    "val": make_first_noun_data(scaled(500, 128), seed=2),
    "test": make_first_noun_data(scaled(1000, 128), seed=3),
}
for name, (ids, lengths, labels) in splits.items():
    print(f"{name:>5}: {len(ids)} sentences, mean length {lengths.float().mean():.2f}, "
          f"class counts {torch.bincount(labels, minlength=3).tolist()}")
train_ids, train_lengths, train_labels = splits["train"]
for row in range(3):
    print(f"  {decode(train_ids[row]):<75} -> {NOUNS[train_labels[row]]}")

# %%
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.hist(train_lengths.numpy(), bins=np.arange(MIN_LEN - 0.5, MAX_LEN + 1.5), color="tab:blue", edgecolor="white")
ax.axvline(train_lengths.float().mean(), color="tab:red", linestyle="--", label="mean length")
ax.set(title="sentence lengths (training split)", xlabel="length (tokens)", ylabel="sentences")
ax.legend()
plt.show()

# %% [markdown]
# ### A bag-of-words baseline
#
# A small MLP on word counts: it sees every word but not their order. It learns
# which nouns are present and then has to guess, so it lands near the 42% ceiling.

# %%
# NBVAL_IGNORE_OUTPUT
def bag_of_words(ids):
    """(N, vocab) word counts, padding excluded."""
    counts = torch.zeros(len(ids), len(VOCAB))
    counts.scatter_add_(1, ids, torch.ones_like(ids, dtype=torch.float32))
    counts[:, PAD_ID] = 0
    return counts


torch.manual_seed(0)
bow_model = nn.Sequential(nn.Linear(len(VOCAB), 64), nn.ReLU(), nn.Linear(64, 3))
bow_opt = torch.optim.Adam(bow_model.parameters(), lr=5e-2)
bow_train = bag_of_words(train_ids)
for step in range(scaled(60, 5)):
    loss = F.cross_entropy(bow_model(bow_train), train_labels)
    bow_opt.zero_grad()
    loss.backward()
    bow_opt.step()
test_ids, test_lengths, test_labels = splits["test"]
with torch.no_grad():
    bow_accuracy = (bow_model(bag_of_words(test_ids)).argmax(-1) == test_labels).float().mean().item()
nouns_present = ((test_ids >= 1) & (test_ids <= len(NOUNS))).sum(1).float()
ceiling = (1 / nouns_present).mean().item()  # guess uniformly among the nouns present
print(f"bag-of-words test accuracy: {bow_accuracy:.3f}  (best possible for a bag of words, in expectation: {ceiling:.3f})")
if not GRADING:
    assert bow_accuracy < 0.5, "a bag of words cannot know which noun comes first"

# %% [markdown]
# ## 7. Bucketing: batches of similar length
#
# A batch is padded to its longest sentence. Draw batches at random and a 5-word sentence
# often shares a batch with a 20-word one: most of its row is padding, computed and
# thrown away. **Bucketing** sorts the examples by length and cuts the sorted list into
# batches, so each batch holds sentences of nearly equal length. Shuffling the *order of
# the batches* (not their content) keeps training stochastic.
#
# Implement `bucket_batches(lengths, batch_size, shuffle=False, seed=0)`:
#
# * `lengths`: one length per example (a list, NumPy array or 1-D tensor);
# * returns a `list` of batches, each a `list` of example indices (`int`s); **every index
#   appears exactly once**;
# * sort the indices by length and cut the sorted list into consecutive batches of
#   `batch_size` (so every batch is full except possibly one);
# * `shuffle=True`: shuffle the order of the batches with a generator seeded by `seed`
#   (e.g. `np.random.default_rng(seed)` or `random.Random(seed)`) — the same seed gives
#   the same batches, and the global random state is not touched.

# %% [solution] id=bucket_batches
def bucket_batches(lengths, batch_size, shuffle=False, seed=0):
    """Indices sorted by length and cut into batches of batch_size; batch order shuffled if asked."""
    ### BEGIN SOLUTION
    lengths = np.asarray(lengths)
    order = np.argsort(lengths, kind="stable")  # shortest first
    batches = [order[start:start + batch_size].tolist() for start in range(0, len(order), batch_size)]
    if shuffle:
        rng = np.random.default_rng(seed)
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches
    ### END SOLUTION


# %%
toy_lengths = [5, 2, 9, 3, 2, 8, 7]
print("bucketed:", bucket_batches(toy_lengths, 3))
print("lengths per batch:", [[toy_lengths[i] for i in b] for b in bucket_batches(toy_lengths, 3)])
print("shuffled order (seed 3):", bucket_batches(toy_lengths, 3, shuffle=True, seed=3))

# %% [test] id=test_bucket_batches points=2
check = Check("test_bucket_batches")
rng = np.random.default_rng(25)
lengths = rng.integers(1, 50, size=1000).tolist()


def padded_fraction(batches, lengths):
    """The share of a padded batch's slots that are padding."""
    slots = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return 1 - sum(lengths) / slots


def flat(batches):
    return [int(i) for b in batches for i in b]


batches = bucket_batches(lengths, 32)
indices = flat(batches)
check.true("no_duplicates", len(indices) == len(set(indices)), "some indices appear more than once (duplicated across batches).")
check.true("none_dropped", set(indices) == set(range(1000)),
           "some indices are missing (dropped) - is the last, smaller batch kept?")
check.equal("every_index_once", torch.tensor(sorted(indices)), torch.arange(1000))
check.equal("batch_sizes", torch.tensor(sorted(len(b) for b in batches)), torch.tensor([8] + [32] * 31),
            hint="1000 examples in batches of 32: 31 full batches and one of 8.")
random_order = rng.permutation(1000)
random_batches = [random_order[i:i + 32].tolist() for i in range(0, 1000, 32)]
waste, random_waste = padded_fraction(batches, lengths), padded_fraction(random_batches, lengths)
check.true("little_padding", waste < 0.25 * random_waste,
           f"bucketed batches are {waste:.0%} padding vs {random_waste:.0%} for random batches: sort by length first.")
shuffled = bucket_batches(lengths, 32, shuffle=True, seed=3)
again = bucket_batches(lengths, 32, shuffle=True, seed=3)
check.true("shuffle_same_seed", [list(map(int, b)) for b in shuffled] == [list(map(int, b)) for b in again],
           "shuffle=True must be deterministic for a given seed (use a seeded generator).")
check.true("shuffle_reorders", [sorted(map(int, b)) for b in shuffled] != [sorted(map(int, b)) for b in batches],
           "shuffle=True must change the order of the batches.")
check.equal("shuffle_every_index_once", torch.tensor(sorted(flat(shuffled))), torch.arange(1000),
            hint="shuffling must keep every index exactly once.")
### BEGIN HIDDEN TESTS
for trial, (n, batch_size) in enumerate([(5, 8), (7, 1), (64, 16), (101, 10)]):
    lens = torch.randint(1, 30, (n,), generator=torch.Generator().manual_seed(26 + trial))
    for shuffle in (False, True):
        got = bucket_batches(lens, batch_size, shuffle=shuffle, seed=trial)
        idx = flat(got)
        check.true(f"hidden_no_dup_{trial}_{shuffle}", len(idx) == len(set(idx)),
                   f"n={n}, batch_size={batch_size}: some indices are duplicated.")
        check.equal(f"hidden_all_{trial}_{shuffle}", torch.tensor(sorted(idx)), torch.arange(n),
                    hint=f"n={n}, batch_size={batch_size}, shuffle={shuffle}: every index exactly once.")
        full, rest = divmod(n, batch_size)
        check.equal(f"hidden_sizes_{trial}_{shuffle}", torch.tensor(sorted(len(b) for b in got)),
                    torch.tensor(([rest] if rest else []) + [batch_size] * full))
    lens_list = lens.tolist()
    got = bucket_batches(np.array(lens_list), batch_size)
    spread = sum(max(lens_list[i] for i in b) - min(lens_list[i] for i in b) for b in got)
    up, down = sorted(lens_list), sorted(lens_list, reverse=True)
    ascending = sum(up[min(s + batch_size, n) - 1] - up[s] for s in range(0, n, batch_size))
    descending = sum(down[s] - down[min(s + batch_size, n) - 1] for s in range(0, n, batch_size))
    check.true(f"hidden_sorted_{trial}", spread <= max(ascending, descending),
               f"n={n}: batches must hold consecutive examples in length order.")
### END HIDDEN TESTS
print("bucket_batches: ok")

# %% [markdown]
# ### Assessment exercise 5: how much padding does bucketing save?
#
# Measured on our training split with batches of 64: the share of computed positions that
# are padding, for random batches and for bucketed ones.

# %%
def padding_waste(batches, lengths):
    """Share of the slots of the padded batches that hold padding."""
    lengths = [int(n) for n in lengths]
    slots = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return 1 - sum(lengths) / slots


order = np.random.default_rng(0).permutation(len(train_lengths))
random_batching = [order[i:i + 64].tolist() for i in range(0, len(order), 64)]
bucketed = bucket_batches(train_lengths, 64, shuffle=True, seed=0)
waste_random, waste_bucketed = padding_waste(random_batching, train_lengths), padding_waste(bucketed, train_lengths)
print(f"padding: random batches {waste_random:.1%}, bucketed {waste_bucketed:.1%} of all positions")
if not GRADING:  # the small grading split has too few sentences per length for this
    assert waste_bucketed < waste_random / 4, "bucketing should remove most of the padding"

fig, axes = plt.subplots(1, 2, figsize=(11, 3.2), sharey=True)
for ax, name, batches in ((axes[0], "random batches", random_batching), (axes[1], "bucketed batches", bucketed)):
    real = [sum(int(train_lengths[i]) for i in b) for b in batches]
    padded = [len(b) * max(int(train_lengths[i]) for i in b) - r for b, r in zip(batches, real)]
    ax.bar(range(len(batches)), real, color="tab:blue", label="real tokens")
    ax.bar(range(len(batches)), padded, bottom=real, color="tab:red", alpha=0.6, label="padding")
    ax.set(title=f"{name}: {padding_waste(batches, train_lengths):.0%} padding", xlabel="batch", ylabel="positions")
    ax.legend(loc="upper right", fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 8. Training
#
# A tiny model is enough: $d_{model} = 32$, 4 heads, $d_{ff} = 64$, 2 layers, about 19k
# parameters. AdamW with a one-cycle learning-rate schedule (a short warm-up, then a
# decay — Transformers dislike a large learning rate at the start), bucketed batches of
# 64, cross-entropy loss, 8 epochs. No dropout: the data are plentiful and noise-free,
# and here dropout only slows learning down (exercise 6). Under grading this cell runs
# one epoch on a small split.

# %%
# NBVAL_IGNORE_OUTPUT
from tqdm.auto import tqdm

CONFIG = dict(vocab_size=len(VOCAB), num_classes=len(NOUNS), d_model=32, num_heads=4, d_ff=64, num_layers=2,
              max_len=MAX_LEN, pad_id=PAD_ID, dropout=0.0)
EPOCHS = scaled(8, 1)
BATCH_SIZE = 64


def batch_of(split, indices):
    """Token ids cut to the batch's longest sentence (B, L_max), and labels (B,), on the device."""
    ids, lengths, labels = splits[split]
    indices = torch.as_tensor(indices)
    longest = int(lengths[indices].max())
    return ids[indices, :longest].to(device), labels[indices].to(device)


def evaluate(model, split):
    """Mean loss and accuracy of `model` on a split."""
    model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for indices in bucket_batches(splits[split][1], 256):
            ids, labels = batch_of(split, indices)
            logits = model(ids)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += (logits.argmax(-1) == labels).sum().item()
    n = len(splits[split][0])
    return total_loss / n, correct / n


def train_classifier(model, epochs=EPOCHS, lr=3e-3, label="model"):
    """Train on the training split; returns the per-epoch history (train loss, val loss, val accuracy)."""
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps = epochs * math.ceil(len(splits["train"][0]) / BATCH_SIZE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.1)
    history = {"train_loss": [], "val_loss": [], "val_acc": []}
    start = time.perf_counter()
    with tqdm(total=steps, desc=label) as bar:
        for epoch in range(epochs):
            model.train()
            running, seen = 0.0, 0
            for indices in bucket_batches(splits["train"][1], BATCH_SIZE, shuffle=True, seed=epoch):
                ids, labels = batch_of("train", indices)
                loss = F.cross_entropy(model(ids), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                running, seen = running + loss.item() * len(indices), seen + len(indices)
                bar.update(1)
            val_loss, val_acc = evaluate(model, "val")
            history["train_loss"].append(running / seen)
            history["val_loss"].append(val_loss)
            history["val_acc"].append(val_acc)
            bar.set_postfix(loss=f"{running / seen:.3f}", val_acc=f"{val_acc:.3f}")
    history["seconds"] = time.perf_counter() - start
    return history


torch.manual_seed(0)
model = TransformerClassifier(**CONFIG, pooling="cls")
print(f"parameters: {sum(p.numel() for p in model.parameters()):,}")
history = train_classifier(model, label="CLS, post-norm")
test_loss, test_acc = evaluate(model, "test")
print(f"trained in {history['seconds']:.1f} s | validation accuracy {history['val_acc'][-1]:.4f} | "
      f"test accuracy {test_acc:.4f} (bag of words: {bow_accuracy:.4f})")
if not GRADING:
    assert test_acc >= 0.97, f"held-out accuracy {test_acc:.4f} is below the 97% target"

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
epochs_axis = range(1, len(history["train_loss"]) + 1)
axes[0].plot(epochs_axis, history["train_loss"], marker="o", label="train")
axes[0].plot(epochs_axis, history["val_loss"], marker="o", label="validation")
axes[0].set(title="loss", xlabel="epoch", ylabel="cross-entropy", yscale="log")
axes[0].legend()
axes[1].plot(epochs_axis, history["val_acc"], marker="o", color="tab:green", label="transformer (validation)")
axes[1].axhline(bow_accuracy, color="tab:gray", linestyle="--", label="bag of words (test)")
axes[1].axhline(0.97, color="tab:red", linestyle=":", label="97% target")
axes[1].set(title="accuracy", xlabel="epoch", ylabel="accuracy", ylim=(0, 1.02))
axes[1].legend(loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 9. Diagnostics
#
# **Padding is invisible.** The seed's diagnostic: change the ids at the padded positions
# (keeping the padding mask) — a correct model gives *exactly* the same logits. If it
# does not, padding leaks in somewhere (a missing mask, a mean over the padded length,
# pooling a padded position).

# %%
model.eval()
ids, labels = batch_of("test", list(range(min(256, len(test_ids)))))
padding = ids == PAD_ID
scrambled = torch.where(padding, torch.randint(1, len(VOCAB), ids.shape, generator=torch.Generator().manual_seed(0)).to(device), ids)
with torch.no_grad():
    change = (model(ids, padding) - model(scrambled, padding)).abs().max().item()
print(f"padded positions: {padding.float().mean():.1%} of the batch | "
      f"logits unchanged when the pad ids change (max change < 1e-5): {change < 1e-5}")
assert change < 1e-5

# %% [markdown]
# **What did a head learn?** The helper below records the per-head attention weights of
# every `nn.MultiheadAttention` in a model during one forward pass (hooks ask each layer
# for its weights). We look at the head whose `[CLS]` query puts the most weight on the
# first noun.

# %%
# NBVAL_IGNORE_OUTPUT
def attention_maps(model, token_ids, key_padding_mask=None):
    """Logits and the per-head weights (B, H, L, S) of each nn.MultiheadAttention, in call order."""
    maps, handles = [], []

    def ask_for_weights(module, args, kwargs):
        return args, {**kwargs, "need_weights": True, "average_attn_weights": False}

    def keep_weights(module, args, output):
        maps.append(output[1].detach().cpu())

    for module in model.modules():
        if isinstance(module, nn.MultiheadAttention):
            handles.append(module.register_forward_pre_hook(ask_for_weights, with_kwargs=True))
            handles.append(module.register_forward_hook(keep_weights))
    try:
        with torch.no_grad():
            logits = model(token_ids, key_padding_mask)
    finally:
        for handle in handles:
            handle.remove()
    return logits, maps


is_noun = (test_ids >= 1) & (test_ids <= len(NOUNS))  # (N, MAX_LEN)
first_slot = is_noun.int().argmax(1)  # position of the first noun
candidates = torch.nonzero((is_noun.sum(1) == 3) & (first_slot >= 3) & (test_lengths >= 10)).flatten()
example = int(candidates[0]) if len(candidates) else 0  # three nouns, the first one not at the start
example_ids = test_ids[example: example + 1, : int(test_lengths[example])].to(device)
logits, maps = attention_maps(model, example_ids)
words = ["[CLS]"] + decode(example_ids[0].cpu()).split()
first_noun = 1 + next(i for i, t in enumerate(example_ids[0].tolist()) if 1 <= t <= len(NOUNS))
layer, head = max(((l, h) for l in range(len(maps)) for h in range(maps[l].shape[1])),
                  key=lambda lh: maps[lh[0]][0, lh[1], 0, first_noun].item())
print("sentence:", " ".join(words[1:]))
print(f"label {NOUNS[test_labels[example]]!r}, predicted {NOUNS[logits.argmax(-1).item()]!r}")
print(f"layer {layer + 1}, head {head + 1}: [CLS] puts {maps[layer][0, head, 0, first_noun]:.0%} of its attention "
      f"on {words[first_noun]!r}, the first noun")
heatmap(maps[layer][0, head], words, words, title=f"trained attention, layer {layer + 1} head {head + 1}")
plt.show()
if not GRADING:
    assert maps[layer][0, head, 0, first_noun] > 0.5, "a trained [CLS] head should focus on the first noun"


# %% [markdown]
# ### Assessment exercise 4: `[CLS]` pooling or masked mean pooling?
#
# Same model, same data, same training budget; only the pooling changes.

# %%
# NBVAL_IGNORE_OUTPUT
torch.manual_seed(0)
mean_model = TransformerClassifier(**CONFIG, pooling="mean")
mean_history = train_classifier(mean_model, label="mean, post-norm")
results = {"CLS, post-norm": (history, test_acc), "mean, post-norm": (mean_history, evaluate(mean_model, "test")[1])}
for name, (hist, acc) in results.items():
    print(f"{name:<16} final val loss {hist['val_loss'][-1]:.4f}  test accuracy {acc:.4f}  ({hist['seconds']:.1f} s)")
if not GRADING:
    assert min(acc for _, acc in results.values()) >= 0.95, "both poolings should learn the task"

# %% [markdown]
# Both work here. The mean pools every token's output, so each token must carry the
# answer; `[CLS]` is a dedicated query that can learn to look for exactly what the task
# needs (here: the earliest noun) and ignore the rest. Mean pooling has no extra
# parameter and no special token, and often does better for sentence *similarity*
# (Sentence-BERT); `[CLS]` is the classic choice for fine-tuned classification.
#
# ### Pre-norm vs post-norm
#
# The same classifier with `norm_first=True`.

# %%
# NBVAL_IGNORE_OUTPUT
torch.manual_seed(0)
pre_model = TransformerClassifier(**CONFIG, pooling="cls", norm_first=True)
pre_history = train_classifier(pre_model, label="CLS, pre-norm")
results["CLS, pre-norm"] = (pre_history, evaluate(pre_model, "test")[1])
print(f"{'CLS, pre-norm':<16} final val loss {pre_history['val_loss'][-1]:.4f}  test accuracy {results['CLS, pre-norm'][1]:.4f}")

fig, ax = plt.subplots(figsize=(7, 3.4))
for name, (hist, acc) in results.items():
    ax.plot(range(1, len(hist["train_loss"]) + 1), hist["train_loss"], marker="o", label=f"{name} (test {acc:.1%})")
ax.set(title="training loss: pooling and norm placement", xlabel="epoch", ylabel="cross-entropy", yscale="log")
ax.legend()
plt.show()
if not GRADING:
    assert results["CLS, pre-norm"][1] >= 0.95, "pre-norm should learn the task too"

# %% [markdown]
# With two layers the difference is small: both placements train. The gap opens with
# depth — a deep post-norm stack needs learning-rate warm-up to train at all, because its
# gradients pass through a LayerNorm at every layer, while pre-norm keeps an identity
# path from the loss to the embeddings (Xiong et al., 2020). The price of pre-norm is an
# extra final LayerNorm and, often, slightly worse final quality for shallow models.
#
# ## Summary
#
# * An encoder block is attention + FFN, each with a residual and a LayerNorm; post-norm
#   normalises after the add, pre-norm before the sublayer. Same attribute names as
#   `nn.TransformerEncoderLayer` → its weights load, and the outputs match.
# * The FFN holds about two thirds of a layer's parameters; its activation is essential.
# * Padding must be invisible: pass the mask to attention, pool only real tokens (or
#   `[CLS]`), and check it — logits unchanged when pad ids change.
# * Bucketing by length removes most of the padding from each batch.
# * A task that depends on word order defeats a bag of words (≈ 42%) and is solved by a
#   20k-parameter Transformer in seconds.
#
# ## Exercises
#
# 1. Remove the position embedding from the classifier and retrain. What accuracy do you
#    expect, and why? (Notebook 04, section 1.)
# 2. Replace the learned position embedding by the sinusoidal one and compare the accuracy
#    on the longest test sentences (lengths ≥ 18).
# 3. Stack 8 post-norm layers and train without the warm-up (constant learning rate
#    3e-3). Then try pre-norm. Which one trains?
# 4. Replace `nn.LayerNorm` by RMSNorm ($x / \sqrt{\operatorname{mean}(x^2) + \epsilon}
#    \cdot g$, no mean subtraction, no bias). Does the accuracy change?
# 5. Change the task so that the label is the *last* noun. Which attention pattern does
#    the trained `[CLS]` head show now?
# 6. Train with `dropout=0.1`. Plot both validation curves: what does dropout cost on a
#    task with plenty of clean data, and when would it pay off?
