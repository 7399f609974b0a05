"""Every expected value comes from the grader's own data, never from the learner's objects.

A check compares the learner's answer with what it should be. If that expected value is computed
with the learner's own objects (06's old reference step called the learner's `embedding`, `cell`
and `out` modules to predict what `step` returns), it is only as right as those objects: modules
that output zeros made an unwritten step "correct". So the rule, checked on every test cell of
every notebook, hidden parts included (tests/expected_values.py reads the source): the expected
value of `check.close` / `check.equal`, and each value of their `mistakes=`, reaches the learner's
code only through the entry points its actual value reaches. An invariance (the answer compared
with itself on other inputs) passes; a reference built from any other part of the learner's code,
from plain data read back from the kernel, or from an object of the check's that the learner's
code was handed, does not.
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import NAMES
from expected_values import scan

from autograder import paths

# Notebook 06 before issue 28: the hidden reference step called the learner's own modules.
OLD_06_DECODER = """
class Decoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size, attention=None):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.attention = None
        self.cell = nn.GRUCell(emb_size + hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size + hidden_size + emb_size, vocab_size)

    def step(self, prev_tokens, hidden, enc_outputs, enc_final, src_mask):
        ### BEGIN SOLUTION
        return None
        ### END SOLUTION
"""
OLD_06_HELPER = """
def set_params(module, seed):
    g = torch.Generator().manual_seed(seed)
    values = {name: torch.randn(p.shape, generator=g) * 0.5 for name, p in sorted(module.named_parameters())}
    module.load_state_dict(values, strict=False)
    return values
"""
OLD_06_TEST = """
check = Check("test_decoder_step_context")
gen = torch.Generator().manual_seed(31)
### BEGIN HIDDEN TESTS
def step_ref(d, prev, hidden, enc_out, enc_fin, mask, context_mode="attention"):
    emb = d.embedding(prev)
    ctx, w = (enc_fin, None) if d.attention is None else d.attention(hidden, enc_out, mask)
    ctx = torch.zeros_like(ctx) if context_mode == "zero" else ctx
    new = d.cell(torch.cat([emb, ctx], -1), hidden)
    return d.out(torch.cat([new, ctx, emb], -1)), new, w

with torch.no_grad():
    for trial, (V, E, H, B, S, kind) in enumerate([(9, 4, 5, 2, 6, "additive"), (8, 5, 6, 4, 5, None)]):
        d = Decoder(V, E, H, attention=kind)
        values = set_params(d, 10 + trial)
        prev, hidden = torch.randint(0, V, (B,), generator=gen), torch.randn(B, H, generator=gen)
        enc_out, enc_fin = torch.randn(B, S, H, generator=gen), torch.randn(B, H, generator=gen)
        mask = torch.arange(S)[None, :] < torch.randint(1, S + 1, (B,), generator=gen)[:, None]
        want, got = step_ref(d, prev, hidden, enc_out, enc_fin, mask), d.step(prev, hidden, enc_out, enc_fin, mask)
        check.close(f"hidden_logits_{trial}", got[0], want[0], atol=1e-5,
                    mistakes={"the context is not fed": step_ref(d, prev, hidden, enc_out, enc_fin, mask, "zero")[0]})
        check.close(f"hidden_hidden_{trial}", got[1], want[1], atol=1e-5)
### END HIDDEN TESTS
"""
SETUP = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom workbook import Check\n\nx = x1 = x2 = 0.0\n"


def notebook(answer: str, *tests: str, plain: str = "") -> nbformat.NotebookNode:
    """A notebook of a setup cell, one answer cell, an optional plain cell and test cells."""
    cells = [nbformat.v4.new_code_cell(SETUP, metadata={"nbgrader": {"grade_id": "setup"}})]
    cells.append(nbformat.v4.new_code_cell(answer, metadata={"nbgrader": {"grade_id": "answer", "solution": True}}))
    cells += [nbformat.v4.new_code_cell(plain)] if plain else []
    meta = {"grade": True, "solution": False, "points": 1}
    cells += [
        nbformat.v4.new_code_cell(t, metadata={"nbgrader": {**meta, "grade_id": f"test_{i}"}})
        for i, t in enumerate(tests)
    ]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize("name", NAMES)
def test_no_expected_value_is_computed_from_the_learners_objects(name):
    found = scan(nbformat.read(paths.source_notebook(name), as_version=4))
    assert found == {}, "\n".join(f"{test}: {f}" for test, fs in found.items() for f in fs)


def test_the_old_06_reference_step_is_found():
    found = scan(notebook(OLD_06_DECODER, OLD_06_TEST, plain=OLD_06_HELPER))["test_0"]
    assert {f.check for f in found} == {"close", "close mistakes"}
    assert {"Decoder<>.embedding()", "Decoder<>.cell()", "Decoder<>.out()"} <= set(found[0].extra)


def test_invariances_and_the_graders_own_references_pass():
    answer = "def mask(n):\n    return torch.ones(n, n).tril() > 0\n\nclass Model(nn.Module):\n    pass\n"
    tests = [
        "m = Model().eval()\ncheck.close('pad', m(x2), m(x1))",  # the answer against itself
        "layer = nn.Linear(2, 2)\ncheck.close('same', layer(mask(3)), layer(mask(3).clone()), mistakes={'a': layer(~mask(3))})",
        "ref = nn.Linear(3, 3)\ncheck.close('ref', Model()(x), ref(x), mistakes={'no bias': F.linear(x, ref.weight)})",
        "mine, ref = pair()\ncheck.close('pair', mine(x), ref(x))",  # a helper's tuple keeps each element's own
    ]
    plain = "def pair():\n    return Model(), nn.Linear(3, 3)\n"
    assert scan(notebook(answer, *tests, plain=plain)) == {}


def test_learner_parts_kernel_data_and_handed_objects_are_found():
    answer = (
        "def table(n):\n    return torch.zeros(n)\n\nclass Model(nn.Module):\n    pass\n\ndef run(model):\n    pass\n"
    )
    plain = "class Recorder:\n    def __init__(self):\n        self.seen = []\n\nvalid_labels = torch.arange(3) + 1\n"
    tests = {
        "test_0": "m = Model()\ncheck.close('uses_table', m(x), x + table(5))",  # another answer cell's function
        "test_1": "m = Model()\ncheck.close('kernel_data', m(x), valid_labels)",  # data the kernel holds
        "test_2": "rec = Recorder()\nrun(rec)\ncheck.close('handed', Model()(x), rec.seen[0])",  # the learner had it
        "test_3": "m = Model()\ncheck.equal('count', m.w1(x), m.w2(x))",  # another part of the same object
    }
    found = scan(notebook(answer, *tests.values(), plain=plain))
    assert sorted(found) == sorted(tests)
    assert found["test_1"][0].extra == ("kernel:valid_labels",)
    assert found["test_2"][0].extra == ("handed:rec.seen",)
