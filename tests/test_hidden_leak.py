"""A learner's own exception on a hidden input shows its type only: no hidden value reaches what learners see.

The catalogue's 01 wrong_raises_with_hidden_inputs raises ValueError(f"LEAKED q=... k=... v=...") on the
hidden float64 batch of test_dtype_grad. Before, its feedback page printed the hidden inputs in full;
under a fixed course key they were the same on every resubmission. Now the message names the type
only, and the inputs change with the answer cells anyway (coursekey.answers_digest).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.checks.coursekey import answers_digest, derive_seed
from autograder.checks.harness import _hidden_message
from autograder.checks.remote import remote_exception

VALUES = re.compile(r"LEAKED q=\[")  # the message with values (the answer's own source says q={...})
ENTRY = (
    Path(__file__).resolve().parent
    / "catalogue"
    / "01_scaled_dot_product_attention"
    / "wrong_raises_with_hidden_inputs.py"
)


@pytest.mark.slow
def test_no_hidden_value_in_messages_results_or_feedback(graded_catalogue, graded_batch):
    result, _ = graded_catalogue[ENTRY]
    lost = {t.name: t.message for t in result.tests if t.score < t.max_score}
    assert "test_dtype_grad" in lost and "ValueError raised by your code" in lost["test_dtype_grad"], lost
    assert not any("LEAKED" in m for m in lost.values()), lost
    out = graded_batch["out"]
    assert not VALUES.search((out / "results.json").read_text())
    pages = list((out / "feedback" / result.student_id).glob("*.html"))
    assert pages and not any(VALUES.search(p.read_text()) for p in pages)


def test_a_learner_exception_keeps_its_type_and_drops_its_text():
    exc = remote_exception({"type": "ValueError", "builtin": "ValueError", "message": "q=[0.25, -1.5]"})
    assert _hidden_message(exc).startswith("ValueError raised by your code") and "0.25" not in _hidden_message(exc)
    told = remote_exception({"type": "ValueError", "builtin": "ValueError",
                             "message": "the reply was larger than 32 MiB (60.3 MiB of arrays)"})  # fmt: skip
    assert _hidden_message(told) == "ValueError: the reply was larger than 32 MiB (60.3 MiB of arrays)"


def test_hidden_inputs_change_with_the_answers_and_not_otherwise():
    one, two = answers_digest({"sdpa": "def f(): return 1\n"}), answers_digest({"sdpa": "def f(): return 2\n"})
    assert one == answers_digest({"sdpa": "def f(): return 1"})  # the same submission: the same inputs (replay)
    seeds = {derive_seed(b"k" * 32, "ada", "01_x", "t", 4, answers=d) for d in (one, two)}
    assert len(seeds) == 2
