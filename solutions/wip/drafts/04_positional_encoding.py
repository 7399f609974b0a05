# %% [markdown]
# # 04 · Positional encoding
#
# **Objectives.** By the end of this notebook you can
#
# 1. show, with a measurement, that self-attention without positions cannot tell
#    "dog bites man" from "man bites dog";
# 2. implement the sinusoidal positional encoding of *Attention Is All You Need*
#    (Vaswani et al., 2017) and read its heatmap;
# 3. verify that $PE(pos + k)$ is a fixed rotation of $PE(pos)$, and that the dot
#    product of two encodings depends only on their distance;
# 4. wrap the encoding in a module with a **buffer**, and build the learned alternative
#    (BERT, GPT-2) — and say what each does past the longest position it was built for;
# 5. answer the $d_{model} = 1024$ question;
# 6. (bonus) implement rotary position embeddings (RoPE).
#
# **How to work.** Fill in every cell that says `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run the toy call below it, then the visible test.
# Visible tests give points and say what is likely wrong; hidden tests check more
# (other sizes, dtypes, positions) when your notebook is graded.
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

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn

from workbook import Check, pick_device, seed_everything

seed_everything(0)
device = pick_device()
torch.set_printoptions(precision=4, sci_mode=False)
print("torch", torch.__version__, "| device:", device)

# %% [markdown]
# ## 1. Self-attention has no sense of order
#
# Self-attention computes, for every token $i$,
#
# $$y_i = \sum_j \operatorname{softmax}_j\!\left(\frac{q_i \cdot k_j}{\sqrt{d_k}}\right) v_j,
# \qquad q_i = W_Q x_i,\; k_j = W_K x_j,\; v_j = W_V x_j .$$
#
# Nothing in this formula mentions *where* token $j$ sits: the sum over $j$ does not care
# about the order of its terms. Shuffle the input tokens with a permutation $\pi$ and the
# outputs are shuffled the same way, $y_{\pi(i)}$ — self-attention is
# **permutation-equivariant**. Pool the outputs (mean, sum) and the result is
# **permutation-invariant**: a bag of words.
#
# Let us measure it with PyTorch's own `nn.MultiheadAttention` on two sentences made of
# the same three words.

# %%
words = ["dog", "bites", "man"]
gen = torch.Generator().manual_seed(4)
word_vectors = torch.randn(3, 16, generator=gen)  # one 16-dim embedding per word
torch.manual_seed(0)
demo_attention = nn.MultiheadAttention(16, num_heads=2, batch_first=True).eval()


def self_attend(x):
    """Self-attention output of one (L, E) sentence through demo_attention."""
    with torch.no_grad():
        return demo_attention(x[None], x[None], x[None], need_weights=False)[0][0]  # (L, E)


dog_bites_man = word_vectors[[0, 1, 2]]  # (3, 16)
man_bites_dog = word_vectors[[2, 1, 0]]  # (3, 16): the same words, the other order
out_dbm, out_mbd = self_attend(dog_bites_man), self_attend(man_bites_dog)
print("output for 'dog' in both sentences is the same vector:",
      torch.allclose(out_dbm[0], out_mbd[2], atol=1e-6))
print("man-bites-dog outputs == dog-bites-man outputs, permuted:",
      torch.allclose(out_mbd, out_dbm[[2, 1, 0]], atol=1e-6))
print("mean-pooled sentence vectors equal:", torch.allclose(out_dbm.mean(0), out_mbd.mean(0), atol=1e-6))

# %% [markdown]
# The "dog" in "dog bites man" gets exactly the same vector as the "dog" in "man bites
# dog", and the pooled sentence vectors are identical: a classifier built on them could
# never say who bit whom. The model needs to be *told* the positions.
#
# ## 2. The sinusoidal encoding
#
# The Transformer adds to each token embedding a vector that depends only on the
# position $pos$. For dimension pair $i = 0, 1, \dots, d_{model}/2 - 1$:
#
# $$PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right), \qquad
# PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right).$$
#
# Even dimensions hold sines, odd dimensions cosines, and **both members of a pair share
# the frequency** $\omega_i = 10000^{-2i/d_{model}}$. Positions count from 0. The
# wavelengths $2\pi/\omega_i$ grow geometrically from $2\pi$ (dimension pair 0, changes
# every step) to $10000 \cdot 2\pi$ (the last pair, almost constant): like the hands of a
# clock, fast ones tell neighbours apart and slow ones tell far-away positions apart.
#
# Implement `sinusoidal_positional_encoding(max_len, d_model)`:
#
# * returns a float32 tensor of shape `(max_len, d_model)`, row `pos` is $PE_{pos}$;
# * raises `ValueError` (mentioning `d_model`) when `d_model` is odd — sines and cosines
#   come in pairs;
# * no loops over positions needed: build a `(max_len, 1)` column of positions and a
#   `(d_model/2,)` row of frequencies and let broadcasting do the rest.

# %% [solution] id=sinusoidal_pe
def sinusoidal_positional_encoding(max_len, d_model):
    """The (max_len, d_model) sinusoidal table: sin on even dims, cos on odd dims."""
    ### BEGIN SOLUTION
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even (sin/cos pairs), got d_model={d_model}")
    # float64 for the angles: pos * omega loses digits in float32 for large positions
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,) = 0, 2, 4, ...
    omega = 10000.0 ** (-two_i / d_model)  # one frequency per pair
    angles = position * omega  # (max_len, d_model/2)
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)  # even dims
    pe[:, 1::2] = torch.cos(angles)  # odd dims: same frequency as their even partner
    return pe.to(torch.float32)
    ### END SOLUTION


# %% [markdown]
# Toy call: 6 positions, $d_{model} = 4$, so the two frequencies are $1$ and $1/100$.
# Row 0 is $[0, 1, 0, 1]$ ($\sin 0, \cos 0, \dots$).

# %%
pe_small = sinusoidal_positional_encoding(6, 4)
print("shape", tuple(pe_small.shape), pe_small.dtype)
print(pe_small)

# %% [test] id=test_sinusoidal points=3
check = Check("test_sinusoidal")
# PE for positions 0..6 with d_model = 4 (frequencies 1 and 1/100), from the formula
table = torch.tensor([
    [0.000000, 1.000000, 0.000000, 1.000000],
    [0.841471, 0.540302, 0.010000, 0.999950],
    [0.909297, -0.416147, 0.019999, 0.999800],
    [0.141120, -0.989992, 0.029996, 0.999550],
    [-0.756802, -0.653644, 0.039989, 0.999200],
    [-0.958924, 0.283662, 0.049979, 0.998750],
    [-0.279415, 0.960170, 0.059964, 0.998201],
])
mistakes = {
    "sin and cos are swapped (even dims must hold sin, odd dims cos)": table[:6].reshape(6, 2, 2).flip(-1).reshape(6, 4),
    "sin and cos are concatenated ([all sin | all cos]) instead of interleaved": torch.cat([table[:6, 0::2], table[:6, 1::2]], -1),
    "positions start at 1 instead of 0": table[1:7],
}
### BEGIN HIDDEN TESTS
def _pe_variant(max_len, d, start=0, exponent="2i", layout="interleaved"):
    """Reference sinusoidal table (float64) and its classic wrong variants."""
    pos = torch.arange(start, start + max_len, dtype=torch.float64)[:, None]
    j = torch.arange(d, dtype=torch.float64)  # dimension index
    pair = torch.div(j, 2, rounding_mode="floor")  # i = floor(j / 2)
    if exponent == "2i":
        expo = 2 * pair / d
    elif exponent == "i":  # 10000^(i/d): the factor 2 forgotten
        expo = pair / d
    elif exponent == "j":  # 10000^(j/d): odd dims use their own index, not 2*floor(j/2)
        expo = j / d
    else:  # "2j": the even index doubled again (4i/d)
        expo = 2 * (2 * pair) / d
    angles = pos / 10000.0 ** expo  # (max_len, d)
    is_even = (j % 2 == 0)
    if layout == "interleaved":
        return torch.where(is_even, torch.sin(angles), torch.cos(angles))
    if layout == "swapped":
        return torch.where(is_even, torch.cos(angles), torch.sin(angles))
    half = angles[:, 0::2]  # "concatenated": [sin(all pairs) | cos(all pairs)]
    return torch.cat([torch.sin(half), torch.cos(half)], -1)


def _pe_mistakes(max_len, d):
    return {
        "sin and cos are swapped (even dims must hold sin, odd dims cos)": _pe_variant(max_len, d, layout="swapped"),
        "sin and cos are concatenated ([all sin | all cos]) instead of interleaved": _pe_variant(max_len, d, layout="concat"),
        "positions start at 1 instead of 0": _pe_variant(max_len, d, start=1),
        "exponent i/d_model instead of 2i/d_model (the factor 2 is missing)": _pe_variant(max_len, d, exponent="i"),
        "exponent uses the dimension index j instead of 2*floor(j/2) (the cos dims get their own frequency)": _pe_variant(max_len, d, exponent="j"),
        "exponent 2j/d_model with j the even dimension index (the pair index doubled twice)": _pe_variant(max_len, d, exponent="2j"),
    }


mistakes = _pe_mistakes(6, 4)
### END HIDDEN TESTS
pe = sinusoidal_positional_encoding(6, 4)
check.close("table_6x4", pe, table[:6], atol=1e-4, mistakes=mistakes,
            hint="Row pos, column 2i is sin(pos / 10000^(2i/d_model)); column 2i+1 is the cos of the same angle.")
check.true("float32", pe.dtype == torch.float32, f"the table must be float32, got {pe.dtype}.")
check.raises("odd_d_model", ValueError, lambda: sinusoidal_positional_encoding(10, 5), match="d_model")
### BEGIN HIDDEN TESTS
for trial, (max_len, d, atol) in enumerate([(1, 2, 1e-5), (50, 16, 1e-4), (128, 64, 1e-4), (37, 6, 1e-4), (300, 512, 1e-3)]):
    got = sinusoidal_positional_encoding(max_len, d)
    check.close(f"hidden_{trial}", got, _pe_variant(max_len, d), atol=atol, rtol=0,
                mistakes=_pe_mistakes(max_len, d), hint=f"max_len={max_len}, d_model={d}.")
    check.true(f"hidden_float32_{trial}", got.dtype == torch.float32, "the table must be float32.")
check.raises("hidden_odd_d_model", ValueError, lambda: sinusoidal_positional_encoding(4, 7))
### END HIDDEN TESTS
print("sinusoidal table: ok")

# %% [markdown]
# ### What it looks like
#
# Left: the table for 100 positions and $d_{model} = 64$ — fast stripes on the left
# (high frequencies), slow ones on the right. Middle: a few dimensions as functions of
# the position. Right: every pair $(PE_{2i}, PE_{2i+1})$ walks around the unit circle,
# pair $i$ turning by the same angle $\omega_i$ at every step.

# %%
pe_plot = sinusoidal_positional_encoding(100, 64)
fig, axes = plt.subplots(1, 3, figsize=(15, 4))
image = axes[0].imshow(pe_plot, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
axes[0].set(title="sinusoidal PE (d_model = 64)", xlabel="dimension", ylabel="position")
fig.colorbar(image, ax=axes[0], label="value")
for dim in (4, 5, 12, 24, 40):
    kind = "sin" if dim % 2 == 0 else "cos"
    axes[1].plot(pe_plot[:, dim], label=f"dim {dim} ({kind}, ω = {10000 ** (-(dim - dim % 2) / 64):.3g})")
axes[1].set(title="per-dimension curves", xlabel="position", ylabel="PE value", ylim=(-1.1, 1.6))
axes[1].legend(fontsize=8, loc="upper right", ncol=2)
pair = 4  # dims 8 and 9, omega = 10000^(-8/64) ≈ 0.316: about 20 positions per turn
axes[2].plot(pe_plot[:20, 2 * pair], pe_plot[:20, 2 * pair + 1], marker="o", color="tab:orange")
for pos in range(20):
    axes[2].annotate(str(pos), (pe_plot[pos, 2 * pair], pe_plot[pos, 2 * pair + 1]), fontsize=7,
                     xytext=(4, 4), textcoords="offset points")
axes[2].set(title=f"pair {pair} walks around a circle (positions 0-19)", xlabel=f"PE[{2 * pair}] (sin)",
            ylabel=f"PE[{2 * pair + 1}] (cos)", aspect="equal")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 3. A shift by $k$ is a fixed rotation
#
# Why sines *and* cosines of the same frequency? Because of the angle-addition formulas:
#
# $$\begin{pmatrix} \sin \omega_i(pos+k) \\ \cos \omega_i(pos+k) \end{pmatrix}
# = \underbrace{\begin{pmatrix} \cos \omega_i k & \sin \omega_i k \\ -\sin \omega_i k & \cos \omega_i k \end{pmatrix}}_{R(\omega_i k)}
# \begin{pmatrix} \sin \omega_i pos \\ \cos \omega_i pos \end{pmatrix}.$$
#
# Stack one $2 \times 2$ rotation per pair into a block-diagonal matrix $M_k$: then
# $PE_{pos+k} = M_k \, PE_{pos}$ for **every** position, with $M_k$ depending on the
# offset $k$ only. A linear layer can therefore learn "look $k$ tokens back" once and
# apply it everywhere — this is the paper's argument for the design. The helper below
# builds $M_k$; the cell after it checks the identity on your table.

# %%
def offset_rotation(k, d_model):
    """The block-diagonal (d_model, d_model) matrix M_k with PE[pos + k] = M_k @ PE[pos]."""
    omega = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    cos, sin = torch.cos(omega * k), torch.sin(omega * k)
    M = torch.zeros(d_model, d_model, dtype=torch.float64)
    M[0::2, 0::2] = torch.diag(cos)  # sin' = cos(wk) sin + sin(wk) cos
    M[0::2, 1::2] = torch.diag(sin)
    M[1::2, 0::2] = torch.diag(-sin)  # cos' = -sin(wk) sin + cos(wk) cos
    M[1::2, 1::2] = torch.diag(cos)
    return M.to(torch.float32)


pe = sinusoidal_positional_encoding(120, 16)
for k in (1, 5, 30):
    M = offset_rotation(k, 16)
    err = (pe[:-k] @ M.T - pe[k:]).abs().max().item()  # rows are positions: PE[k:] = PE[:-k] M_kᵀ
    print(f"k={k:>2}: M_k PE(pos) == PE(pos+k) for all positions (max error < 1e-5): {err < 1e-5};"
          f"  M_k orthogonal: {torch.allclose(M @ M.T, torch.eye(16), atol=1e-6)}")

# %% [test] id=test_relative_shift points=1
check = Check("test_relative_shift")
pe = sinusoidal_positional_encoding(120, 16)
for k in (1, 2, 7, 30, 64):
    check.close(f"shift_{k}", pe[: 120 - k] @ offset_rotation(k, 16).T, pe[k:], atol=1e-4,
                hint=f"PE(pos+{k}) must equal M_{k} PE(pos): each (sin, cos) pair must share one frequency, "
                     "sin on the even dim and cos on the odd dim.")
print("PE(pos + k) = M_k PE(pos) for every k checked: ok")

# %% [markdown]
# ## 4. Dot products depend only on the distance
#
# The same formulas give the dot product of two encodings:
#
# $$PE_p \cdot PE_q = \sum_i \big(\sin \omega_i p \sin \omega_i q + \cos \omega_i p \cos \omega_i q\big)
# = \sum_i \cos\big(\omega_i (p - q)\big).$$
#
# It depends on $p - q$ only (and is symmetric: it cannot tell "3 before" from "3
# after"). The matrix of all dot products is constant along its diagonals (a *Toeplitz*
# matrix), and it is largest on the diagonal: every position is most similar to itself
# and, roughly, less similar the further away.

# %%
pe = sinusoidal_positional_encoding(64, 32)
gram = pe @ pe.T  # (64, 64)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
image = axes[0].imshow(gram, cmap="viridis")
axes[0].set(title="PE(p) · PE(q), d_model = 32", xlabel="position q", ylabel="position p")
fig.colorbar(image, ax=axes[0], label="dot product")
for p in (0, 10, 20):
    axes[1].plot(range(0, 64 - p), gram[p, p:], label=f"p = {p}")
axes[1].set(title="PE(p) · PE(p + k): the same curve from every p", xlabel="offset k", ylabel="dot product")
axes[1].legend()
fig.tight_layout()
plt.show()

# %% [test] id=test_distance_only points=1
check = Check("test_distance_only")
pe = sinusoidal_positional_encoding(60, 32)
omega = 10000.0 ** (-torch.arange(0, 32, 2, dtype=torch.float64) / 32)  # (16,)
offsets = (torch.arange(60)[:, None] - torch.arange(60)[None, :]).double()  # (60, 60): p - q
check.close("gram", pe @ pe.T, torch.cos(offsets[..., None] * omega).sum(-1), atol=1e-4,
            hint="PE(p)·PE(q) must equal Σ_i cos(ω_i (p - q)): check the frequencies and the sin/cos pairing.")
print("dot products depend only on p - q: ok")

# %% [markdown]
# ## 5. A module with a buffer
#
# In a model the table is precomputed once and added to the embeddings. It is **not
# learned**, so it must not be an `nn.Parameter` (the optimizer would train it and
# weight decay would shrink it). Register it with `self.register_buffer("pe", table)`:
# a buffer moves with `.to(device)`, is saved in the `state_dict`, and is ignored by the
# optimizer.
#
# Implement `SinusoidalPositionalEncoding(d_model, max_len=5000, dropout=0.0)`:
#
# * `__init__`: build the `(max_len, d_model)` table with your function, register it as a
#   buffer, and create an `nn.Dropout(dropout)` (the paper applies dropout to the sum);
# * `forward(x)`: `x` is batch-first `(B, L, d_model)` (any leading dims work the same);
#   return `dropout(x + pe[:L])`. Positions past `max_len` are no problem for a formula:
#   if `L > max_len`, compute the longer table on the fly instead of failing.

# %% [solution] id=sinusoidal_module
class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to batch-first inputs (B, L, d_model)."""

    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        ### BEGIN SOLUTION
        self.d_model = d_model
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))  # (max_len, d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        length = x.shape[-2]
        if length <= self.pe.shape[0]:
            pe = self.pe[:length]  # (L, d_model), broadcasts over the batch
        else:  # past max_len: the formula still works
            pe = sinusoidal_positional_encoding(length, self.d_model).to(self.pe.device)
        return self.dropout(x + pe)
        ### END SOLUTION


# %%
positional = SinusoidalPositionalEncoding(8, max_len=20)
x = torch.zeros(2, 5, 8)
print("output", tuple(positional(x).shape))
print("parameters:", [name for name, _ in positional.named_parameters()],
      "| buffers:", [(name, tuple(b.shape)) for name, b in positional.named_buffers()])

# %% [test] id=test_sinusoidal_module points=2
check = Check("test_sinusoidal_module")
gen = torch.Generator().manual_seed(5)
module = SinusoidalPositionalEncoding(8, max_len=20).eval()
check.true("no_parameters", len(list(module.parameters())) == 0,
           "the encoding is registered as a trainable parameter (nn.Parameter): the optimizer would change it. "
           "Use self.register_buffer.")
check.true("is_buffer", any(b.shape[-1] == 8 and b.numel() >= 20 * 8 for b in module.buffers()),
           "store the precomputed (max_len, d_model) table with self.register_buffer, so that .to(device) moves it.")
x = torch.randn(2, 5, 8, generator=gen)
want = x + sinusoidal_positional_encoding(5, 8)
check.close("forward", module(x), want, atol=1e-5,
            mistakes={"forward returns the encoding without adding x": (want - x).expand(2, 5, 8),
                      "forward returns x unchanged": x},
            hint="forward(x) must return x + pe[:L] for batch-first x of shape (B, L, d_model).")
### BEGIN HIDDEN TESTS
def _oracle_pe(max_len, d):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    out = torch.zeros(max_len, d, dtype=torch.float64)
    out[:, 0::2], out[:, 1::2] = torch.sin(pos * omega), torch.cos(pos * omega)
    return out


for trial, (batch, L, d, max_len) in enumerate([((3,), 7, 6, 7), ((2, 2), 11, 16, 5000), ((), 4, 10, 30)]):
    module = SinusoidalPositionalEncoding(d, max_len=max_len, dropout=0.3).eval()
    x = torch.randn(*batch, L, d, generator=gen)
    check.close(f"hidden_forward_{trial}", module(x), x + _oracle_pe(L, d), atol=1e-4,
                mistakes={"forward returns the encoding without adding x": _oracle_pe(L, d).expand_as(x)},
                hint=f"input shape {tuple(x.shape)}, max_len={max_len}; in eval mode dropout is off.")
    check.true(f"hidden_no_parameters_{trial}", len(list(module.parameters())) == 0,
               "the encoding is registered as a trainable parameter (nn.Parameter).")
module = SinusoidalPositionalEncoding(4, max_len=10)
x = torch.randn(1, 3, 4, generator=gen, requires_grad=True)
module(x).sum().backward()
check.close("hidden_grad_x", x.grad, torch.ones(1, 3, 4), hint="gradients must flow to x through the addition.")
### END HIDDEN TESTS
print("SinusoidalPositionalEncoding: ok")

# %% [markdown]
# ## 6. Positions break the symmetry
#
# Back to section 1, now with the encoding added before self-attention. The same word at
# a different position now gets a different vector, and the two sentences are no longer
# permutations of each other.

# %%
positional = SinusoidalPositionalEncoding(16).eval()
out_dbm_pe = self_attend(positional(dog_bites_man[None])[0])
out_mbd_pe = self_attend(positional(man_bites_dog[None])[0])
print("with PE, man-bites-dog == permuted dog-bites-man:", torch.allclose(out_mbd_pe, out_dbm_pe[[2, 1, 0]], atol=1e-4))
print("distance between the two mean-pooled sentence vectors:",
      f"without PE {(out_dbm.mean(0) - out_mbd.mean(0)).norm():.4f},",
      f"with PE {(out_dbm_pe.mean(0) - out_mbd_pe.mean(0)).norm():.4f}")

# %% [test] id=test_permutation points=1
check = Check("test_permutation")
gen = torch.Generator().manual_seed(4)
vectors = torch.randn(3, 16, generator=gen)  # dog, bites, man
torch.manual_seed(0)
attention = nn.MultiheadAttention(16, num_heads=2, batch_first=True).eval()


def attend(x):
    """Self-attention outputs (L, E) of one (L, E) sentence."""
    with torch.no_grad():
        return attention(x[None], x[None], x[None], need_weights=False)[0][0]


dbm, mbd = vectors[[0, 1, 2]], vectors[[2, 1, 0]]
positional = SinusoidalPositionalEncoding(16).eval()
with_pe_dbm, with_pe_mbd = attend(positional(dbm[None])[0]), attend(positional(mbd[None])[0])
check.true("order_matters_with_pe", not torch.allclose(with_pe_mbd, with_pe_dbm[[2, 1, 0]], atol=1e-3),
           "with the encoding added, 'man bites dog' must not give the permuted outputs of 'dog bites man'. "
           "Does forward add a position-dependent vector?")
check.true("equivariant_without_pe", torch.allclose(attend(mbd), attend(dbm)[[2, 1, 0]], atol=1e-5),
           "without positions self-attention is permutation-equivariant.")
### BEGIN HIDDEN TESTS
def _pe_ref(max_len, d):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.stack([torch.sin(pos * omega), torch.cos(pos * omega)], -1).flatten(-2).float()


pe3 = _pe_ref(3, 16)
check.close("hidden_with_pe_output", with_pe_dbm, attend(dbm + pe3), atol=1e-4,
            hint="the output with PE must be self-attention over x + PE.")
### END HIDDEN TESTS
print("order matters once positions are added: ok")

# %% [markdown]
# ## 7. Learned positional embeddings
#
# BERT and GPT-2 do not use a formula: they learn one vector per position, a table
# `nn.Embedding(max_len, d_model)` trained with the rest of the model. It can fit
# whatever the data needs, but it only has rows for positions `0 … max_len-1` — and the
# rows of rarely seen (long) positions are barely trained.
#
# Implement `LearnedPositionalEmbedding(max_len, d_model)` (argument order as in
# `nn.Embedding`):
#
# * exactly one parameter, the `(max_len, d_model)` table (an `nn.Embedding` is easiest);
# * `forward(x)` for batch-first `x` of shape `(B, L, d_model)`: return `x + table[0:L]`
#   (positions `0 … L-1`, created on `x`'s device);
# * if `L > max_len`, raise a `ValueError` whose message names `max_len` and `L` — not
#   the cryptic `IndexError: index out of range in self` that `nn.Embedding` gives.

# %% [solution] id=learned_pe
class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned (max_len, d_model) table of position vectors to batch-first inputs."""

    def __init__(self, max_len, d_model):
        super().__init__()
        ### BEGIN SOLUTION
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        length = x.shape[-2]
        if length > self.max_len:
            raise ValueError(
                f"sequence length L={length} is longer than max_len={self.max_len}: "
                f"a learned table has no vector for positions >= {self.max_len}"
            )
        positions = torch.arange(length, device=x.device)  # (L,)
        return x + self.embedding(positions)  # (L, d_model) broadcasts over the batch
        ### END SOLUTION


# %%
learned = LearnedPositionalEmbedding(10, 8)
print("output", tuple(learned(torch.zeros(2, 6, 8)).shape))
print("parameters:", [(name, tuple(p.shape)) for name, p in learned.named_parameters()])

# %% [test] id=test_learned points=2
check = Check("test_learned")
gen = torch.Generator().manual_seed(6)
module = LearnedPositionalEmbedding(10, 6)
params = list(module.parameters())
check.true("one_table", len(params) == 1 and tuple(params[0].shape) == (10, 6),
           "a learned positional embedding has exactly one parameter: the (max_len, d_model) table.")
table = torch.randn(10, 6, generator=gen)
with torch.no_grad():
    params[0].copy_(table)
x = torch.randn(3, 7, 6, generator=gen)
check.close("forward", module(x), x + table[:7],
            mistakes={"forward returns the position vectors without adding x": table[:7].expand(3, 7, 6),
                      "positions start at 1 instead of 0": x + table[1:8]},
            hint="forward(x) must return x + table[0:L].")
check.close("full_length", module(x[:, :1].expand(3, 10, 6)), x[:, :1] + table,
            hint="L == max_len must work: positions 0 … max_len-1.")
check.raises("too_long", ValueError, lambda: module(torch.zeros(1, 11, 6)), match="max_len")
### BEGIN HIDDEN TESTS
x = torch.randn(2, 4, 6, generator=gen, requires_grad=True)
grad_out = torch.randn(2, 4, 6, generator=gen)
module.zero_grad()
(module(x) * grad_out).sum().backward()
want_grad = torch.zeros(10, 6)
want_grad[:4] = grad_out.sum(0)
check.close("hidden_table_grad", params[0].grad, want_grad, hint="the table must receive gradients (rows 0..L-1 only).")
check.close("hidden_x_grad", x.grad, grad_out, hint="gradients must flow to x.")
module2 = LearnedPositionalEmbedding(3, 2)
check.raises("hidden_too_long", ValueError, lambda: module2(torch.zeros(2, 4, 2)), match="max_len")
### END HIDDEN TESTS
print("LearnedPositionalEmbedding: ok")

# %% [markdown]
# ## 8. Past the longest position: extrapolation
#
# A formula has a value for every position; a table does not. Both modules below are
# built for `max_len = 32`; we feed them 48 positions. The sinusoidal one simply keeps
# going (whether a model *trained* on 32 positions then uses positions 32-47 well is
# another question — its attention has never seen them); the learned one has nothing to
# add and says so.

# %%
sin_module = SinusoidalPositionalEncoding(16, max_len=32).eval()
learned_module = LearnedPositionalEmbedding(32, 16)
long_input = torch.zeros(1, 48, 16)
print("sinusoidal on 48 positions:", tuple(sin_module(long_input).shape))
try:
    learned_module(long_input)
except ValueError as error:
    print("learned on 48 positions: ValueError:", error)

extended = sin_module(long_input)[0]  # (48, 16): just the encoding, since x = 0
fig, ax = plt.subplots(figsize=(8, 3.2))
for dim in (4, 8, 12):
    ax.plot(extended[:, dim], label=f"dim {dim}")
ax.axvspan(32, 47, color="grey", alpha=0.2, label="past max_len")
ax.set(title="the sinusoidal encoding continues past max_len", xlabel="position", ylabel="PE value")
ax.legend(loc="lower left", fontsize=8)
plt.show()

# %% [test] id=test_extrapolation points=1
check = Check("test_extrapolation")
sin_module = SinusoidalPositionalEncoding(8, max_len=16).eval()
x = torch.zeros(1, 40, 8)
check.close("sinusoidal_past_max_len", sin_module(x)[0], sinusoidal_positional_encoding(40, 8), atol=1e-4,
            hint="for L > max_len compute the longer table instead of failing.")
check.raises("learned_past_max_len", ValueError, lambda: LearnedPositionalEmbedding(16, 8)(x), match="max_len")
### BEGIN HIDDEN TESTS
def _pe_ref(max_len, d):
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    return torch.stack([torch.sin(pos * omega), torch.cos(pos * omega)], -1).flatten(-2)


sin_module = SinusoidalPositionalEncoding(6, max_len=3).eval()
x = torch.randn(2, 9, 6, generator=torch.Generator().manual_seed(8))
check.close("hidden_past_max_len", sin_module(x), x + _pe_ref(9, 6), atol=1e-4,
            hint="L=9 with max_len=3: positions past max_len follow the same formula.")
### END HIDDEN TESTS
print("extrapolation: ok")

# %% [markdown]
# ## 9. The $d_{model} = 1024$ question
#
# *A Transformer uses $d_{model} = 1024$ and sequences of up to 5000 tokens. How many
# frequencies does its sinusoidal encoding use, what are the shortest and longest
# wavelengths, is every position still distinguishable, and how large are the position
# vectors compared with the word embeddings?*
#
# * $d_{model}/2 = 512$ frequencies, one per (sin, cos) pair — the encoding has the same
#   width as the embeddings so that the two can be **added**.
# * Wavelengths $2\pi / \omega_i = 2\pi \cdot 10000^{2i/1024}$: from $2\pi \approx 6.28$
#   positions (pair 0) to $2\pi \cdot 10000^{1022/1024} \approx 61{,}700$ positions (pair 511) —
#   far more than 5000, so no two positions get the same vector.
# * Every row has norm $\sqrt{512} \approx 22.6$ (each pair contributes
#   $\sin^2 + \cos^2 = 1$). That is why the paper multiplies the embeddings by
#   $\sqrt{d_{model}} = 32$: with the usual small initialisation a word vector has norm
#   about 1 and would be drowned by the position.
#
# The next cell measures all of this on your table.

# %%
pe_1024 = sinusoidal_positional_encoding(5000, 1024)
wavelengths = 2 * math.pi * 10000 ** (torch.arange(0, 1024, 2, dtype=torch.float64) / 1024)
print("table", tuple(pe_1024.shape), "| frequencies:", wavelengths.numel())
print(f"shortest wavelength {wavelengths[0]:.2f} positions, longest {wavelengths[-1]:,.0f} positions")
print(f"row norms: min {pe_1024.norm(dim=1).min():.4f}, max {pe_1024.norm(dim=1).max():.4f}, sqrt(512) = {math.sqrt(512):.4f}")
sample = pe_1024[::10]  # every 10th position, to keep the distance matrix small: (500, 1024)
distances = torch.cdist(sample, sample) + torch.eye(len(sample)) * 1e9
print(f"smallest distance between two different positions (every 10th): {distances.min():.4f}")
print(f"neighbours: |PE(0) - PE(1)| = {(pe_1024[0] - pe_1024[1]).norm():.4f}, "
      f"|PE(4998) - PE(4999)| = {(pe_1024[4998] - pe_1024[4999]).norm():.4f}  (the same: it depends on the distance only)")

# %% [test] id=test_d_model_1024 points=1
check = Check("test_d_model_1024")
pe_1024 = sinusoidal_positional_encoding(5000, 1024)
check.equal("shape", torch.tensor(pe_1024.shape), torch.tensor([5000, 1024]))
entries = torch.stack([pe_1024[1, 0], pe_1024[1, 1], pe_1024[1000, 512], pe_1024[1000, 513],
                       pe_1024[4999, 1022], pe_1024[4999, 1023]])
check.close("entries", entries, torch.tensor([0.841471, 0.540302, -0.544021, -0.839072, 0.487282, 0.873245]),
            atol=2e-3, hint="PE[1000, 512] = sin(1000 / 10000^(512/1024)) = sin(10).")
check.close("row_norms", pe_1024[::97].norm(dim=1), torch.full((52,), math.sqrt(512)), atol=1e-3,
            hint="every row has norm sqrt(d_model / 2): each (sin, cos) pair contributes 1.")
print("d_model = 1024: ok")

# %% [markdown]
# ## 10. Bonus: rotary position embeddings (RoPE)
#
# Adding $PE$ to the input mixes position into the content. RoPE (Su et al., *RoFormer*,
# 2021; used by LLaMA, GPT-NeoX, Mistral, ...) instead **rotates** the query and key
# vectors, just before the dot product, by an angle proportional to their position:
# the pair $(x_{2i}, x_{2i+1})$ of a vector at position $m$ becomes
#
# $$\begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} =
# \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}
# \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}, \qquad \theta_i = 10000^{-2i/D}.$$
#
# Rotations preserve lengths, and $R(m\theta)^\top R(n\theta) = R((n - m)\theta)$, so
# $q'_m \cdot k'_n$ depends on the content and on $m - n$ only: attention sees
# **relative** positions, with no extra parameters.
#
# **Pairing convention (important).** This notebook uses **interleaved pairs**
# $(x_0, x_1), (x_2, x_3), \dots$ — the RoFormer paper's layout, the same as the sinusoidal
# table above. GPT-NeoX and the Hugging Face LLaMA code instead pair $x_i$ with
# $x_{i + D/2}$ ("rotate half"). Both are RoPE, but they give different numbers, and
# weights trained with one layout do not work with the other.
#
# Implement `rotary_embedding(x, positions=None)`:
#
# * `x`: `(..., L, D)` with `D` even (`ValueError` otherwise), e.g. queries `(B, H, L, d_k)`;
# * `positions`: integer tensor broadcastable to `x.shape[:-1]`, e.g. `(L,)`; default
#   `0 … L-1` (a KV cache passes later positions);
# * returns the rotated tensor, same shape, dtype and device as `x`.

# %% [solution] id=rotary
def rotary_embedding(x, positions=None):
    """Rotate each interleaved pair (x[2i], x[2i+1]) at position m by the angle m * 10000^(-2i/D)."""
    ### BEGIN SOLUTION
    length, dim = x.shape[-2], x.shape[-1]
    if dim % 2 != 0:
        raise ValueError(f"the last dimension must be even to form pairs, got D={dim}")
    if positions is None:
        positions = torch.arange(length, device=x.device)
    # float64 on CPU-friendly devices for accuracy; MPS has no float64, float32 is fine there
    work = torch.float64 if x.device.type != "mps" else torch.float32
    theta = 10000.0 ** (-torch.arange(0, dim, 2, device=x.device, dtype=work) / dim)  # (D/2,)
    angles = positions.to(device=x.device, dtype=work).unsqueeze(-1) * theta  # (..., L, D/2)
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., L, D/2) each
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)  # (..., L, D/2, 2)
    return rotated.flatten(-2)  # (..., L, D): pairs back in place
    ### END SOLUTION


# %%
gen = torch.Generator().manual_seed(9)
q, k = torch.randn(1, 2, 6, 8, generator=gen), torch.randn(1, 2, 6, 8, generator=gen)  # (B, H, L, d_k)
q_rot, k_rot = rotary_embedding(q), rotary_embedding(k)
print("rotated", tuple(q_rot.shape), "| lengths kept:", torch.allclose(q_rot.norm(dim=-1), q.norm(dim=-1), atol=1e-5))
scores = q_rot @ k_rot.transpose(-2, -1)  # (B, H, L, L)
shifted = rotary_embedding(q, torch.arange(6) + 100) @ rotary_embedding(k, torch.arange(6) + 100).transpose(-2, -1)
print("scores unchanged when every position shifts by 100:", torch.allclose(scores, shifted, atol=1e-4))

# %% [test] id=test_rotary points=2
check = Check("test_rotary")
gen = torch.Generator().manual_seed(10)
x = torch.tensor([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]])  # (L=2, D=4): theta = 1 and 1/100
check.close("literal", rotary_embedding(x), torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.540302, 0.841471, 0.99995, 0.01]]),
            atol=1e-5,
            mistakes={"pairs are (x[i], x[i + D/2]) (rotate-half layout); this notebook uses interleaved pairs (x[2i], x[2i+1])":
                      torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.540302 - 0.841471, 0.0, 0.841471 + 0.540302, 0.0]]),
                      "the rotation goes the wrong way (sin sign flipped)":
                      torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.540302, -0.841471, 0.99995, -0.01]])},
            hint="position 1 rotates pair i by the angle 10000^(-2i/D): (1, 0) becomes (cos, sin).")
q, k = torch.randn(2, 3, 7, 8, generator=gen), torch.randn(2, 3, 7, 8, generator=gen)
q_rot = rotary_embedding(q)
check.close("norms_kept", q_rot.norm(dim=-1), q.norm(dim=-1), atol=1e-4, hint="a rotation keeps every vector's length.")
later = torch.arange(7) + 13
check.close("relative", rotary_embedding(q, later) @ rotary_embedding(k, later).transpose(-2, -1),
            q_rot @ rotary_embedding(k).transpose(-2, -1), atol=1e-4,
            hint="q'·k' must depend on the distance only: shifting all positions by 13 must not change the scores.")
### BEGIN HIDDEN TESTS
def _rope_oracle(x, positions=None, layout="interleaved", sign=1.0):
    L, D = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(L)
    theta = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
    angles = sign * positions.double().unsqueeze(-1) * theta
    rot = torch.polar(torch.ones_like(angles), angles)  # e^{i m theta}
    xd = x.double()
    if layout == "interleaved":
        z = torch.view_as_complex(xd.reshape(*xd.shape[:-1], D // 2, 2).contiguous())
        return torch.view_as_real(z * rot).flatten(-2)
    z = torch.complex(xd[..., : D // 2], xd[..., D // 2:])
    out = z * rot
    return torch.cat([out.real, out.imag], -1)


def _rope_mistakes(x, positions=None):
    return {
        "pairs are (x[i], x[i + D/2]) (rotate-half layout); this notebook uses interleaved pairs (x[2i], x[2i+1])":
            _rope_oracle(x, positions, layout="half"),
        "the rotation goes the wrong way (sin sign flipped)": _rope_oracle(x, positions, sign=-1.0),
    }


for trial, (shape, positions) in enumerate([
    ((5, 2), None), ((3, 9, 16), None), ((2, 4, 6, 8), torch.arange(6) + 40),
    ((2, 5, 4), torch.tensor([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11]])), ((1, 3, 32), torch.tensor([5, 0, 2])),
]):
    x = torch.randn(*shape, generator=gen)
    check.close(f"hidden_{trial}", rotary_embedding(x, positions), _rope_oracle(x, positions), atol=1e-4,
                mistakes=_rope_mistakes(x, positions), hint=f"x shape {shape}, positions {positions}.")
x64 = torch.randn(2, 7, 6, dtype=torch.float64, generator=gen)
out64 = rotary_embedding(x64)
check.true("hidden_dtype64", out64.dtype == torch.float64, "keep the input dtype (float64 in, float64 out).")
check.close("hidden_out64", out64, _rope_oracle(x64), atol=1e-10)
check.raises("hidden_odd_dim", ValueError, lambda: rotary_embedding(torch.randn(3, 5)))
### END HIDDEN TESTS
print("rotary_embedding: ok")

# %% [markdown]
# ## Summary
#
# * Self-attention is permutation-equivariant: without positions, "dog bites man" and
#   "man bites dog" are the same bag of words.
# * The sinusoidal encoding gives pair $i$ the frequency $10000^{-2i/d_{model}}$, sin on
#   even and cos on odd dimensions, positions from 0. A shift by $k$ is a fixed rotation
#   $M_k$, and $PE_p \cdot PE_q$ depends only on $p - q$.
# * A non-learned table belongs in a **buffer** (moves with the model, saved, not trained).
# * Learned embeddings fit the data but stop at `max_len`; the formula extrapolates
#   (which does not guarantee the model uses far positions well).
# * RoPE rotates queries and keys so that attention scores see relative positions; mind
#   the pairing convention (interleaved here, rotate-half in GPT-NeoX/LLaMA code).
#
# ## Exercises
#
# 1. Replace 10000 by 100 in the formula. Redraw the heatmap and the dot-product curve:
#    what happens to far-apart positions?
# 2. Concatenate instead of add: give the model `[x ; PE]` (width $2 d_{model}$). What
#    does it cost, and what does adding rely on (hint: high-dimensional vectors are nearly
#    orthogonal)?
# 3. Show that the dot-product curve of section 4 is symmetric in $k$. Can attention with
#    additive sinusoidal PE still learn "look one token to the *left*"? (Hint: the queries
#    and keys go through different matrices $W_Q \ne W_K$.)
# 4. ALiBi (Press et al., 2022) adds $-m \cdot |i - j|$ to the attention scores instead of
#    encoding positions. Write it as an additive `attn_mask` for `nn.MultiheadAttention`.
# 5. In notebook 05, train the classifier with learned and with sinusoidal positions and
#    compare the accuracy on the longest test sequences.
