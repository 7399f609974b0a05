"""A learner's own exception on a hidden input shows its type only: no hidden value reaches what learners see.

The catalogue's 01 wrong_raises_with_hidden_inputs raises ValueError(f"LEAKED q=... k=... v=...") on the
hidden float64 batch of test_dtype_grad. Before, its feedback page printed the hidden inputs in full;
under a fixed course key they were the same on every resubmission. Now the message names the type
only, and the inputs change with the answer cells anyway (coursekey.answers_digest).
tests/leak_plants.py plants the same leak in every answer of every notebook (the batch grades it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from leak_plants import MARKER

from autograder import paths
from autograder.checks.coursekey import answers_digest, derive_seed
from autograder.checks.harness import _hidden_message
from autograder.checks.link import remote_exception

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


@pytest.mark.slow
@pytest.mark.parametrize("name", paths.notebook_names())
def test_planted_leaks_show_no_hidden_value(graded_batch, name):
    result = graded_batch["results"][graded_batch["leaks"][name]]
    hidden = [t for t in result.tests if t.failed_in == "hidden"]
    assert any("raised by your code on a hidden test's input" in t.message for t in hidden), result.tests
    assert not any(MARKER.search(t.message) for t in hidden), [t.message for t in hidden]
    visible = [t.message for t in result.tests if t.failed_in == "visible"]  # the notebook's own inputs
    page = (graded_batch["out"] / "feedback" / result.student_id / f"{name}.html").read_text()
    assert not [m for m in MARKER.findall(page) if not any(m in v for v in visible)]
    shown = [
        s for s in _submissions(graded_batch["out"]) if (s["student_id"], s["notebook"]) == (result.student_id, name)
    ]
    assert len(shown) == 1
    assert not [m for m in MARKER.findall(json.dumps(shown[0])) if not any(m in v for v in visible)]


def _submissions(out: Path) -> list[dict]:
    return json.loads((out / "results.json").read_text())["submissions"]


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
