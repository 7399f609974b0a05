"""The range a correct run reaches: each training notebook's reference run under other seeds.

    python benchmarks/expected_figures.py [--notebooks 04,05,06,07,09,10] [--seeds 3] [--write]

Seed 0 is the committed run: its figures are read from the outputs saved in solutions/NN_*.ipynb.
Every other seed runs every code cell of the notebook (outside Jupyter, as tests/run_cells.py
does, on one thread) with every `torch.manual_seed(n)`, `random.Random(n)` and `seed_everything(n)`
of the notebook shifted by 1000 × seed: other initial weights and batches, the same data. Each
figure is read by a pattern that must match exactly one line of what the notebook printed (a
pattern that also matched another table's row would mix two measures), and the figures of every
seed are printed with their min and max. `--write` keeps them in benchmarks/expected_figures.json,
which tests/test_content_claims.py holds the notebooks' "Expected figures" notes to: each range a
note states is the min and max of its figure (NOTES says which figure each range is about).
Timings are part of the output: on a shared machine they are noisy; the accuracies are not.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "benchmarks" / "expected_figures.json"

_EPOCH = r"^epoch\s+\d+\s+loss ([\d.]+)\s+lr [\d.e-]+\s+\(([\d.]+) s\)\s*$"
_LAST_EPOCH = r"(?![\s\S]*^epoch\s+\d+\s+loss)"  # no epoch line after this one
_DEEP_RUN = r"^{}\s+validation accuracy ([\d.]+)\s+loss over the last 10 steps [\d.]+\s+\(([\d.]+) s\)"  # 05
_BOTTLENECK_ROW = r"^\s*{} \|\s+([\d.]+)%\s+([\d.]+)% \|\s+([\d.]+)%\s+([\d.]+)%\s*$"  # 06: test and long splits
_SLOT_ROW = r"^{}\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+\d+ s$"  # 10: size .. whole
_ALIGNMENT = r"^writing the first object's shape: ([\d.]+)% of the cross-attention on its patches, ([\d.]+)% on"

# figure name -> (pattern of the one printed line that holds it, which group is the number)
FIGURES: dict[str, dict[str, tuple[str, int]]] = {
    "04_positional_encoding": {
        "bidirectional, no positions: test accuracy": (r"^bidirectional, no positions\s+test accuracy ([\d.]+)", 1),
        "bidirectional, positions: test accuracy": (r"^bidirectional, positions\s+test accuracy ([\d.]+)", 1),
        "causal, no positions: test accuracy": (r"^causal, no positions\s+test accuracy ([\d.]+)", 1),
        "causal, no positions: training s": (r"^causal, no positions\s+test accuracy [\d.]+\s+\(([\d.]+) s\)", 1),
    },
    "05_encoder_classifier": {
        "CLS test accuracy": (r"^CLS, post-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)", 1),
        "CLS training s": (r"^trained in ([\d.]+) s \|", 1),
        "mean-pool test accuracy": (r"^mean, post-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)", 1),
        "pre-norm test accuracy": (r"^CLS, pre-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)", 1),
        "6 layers, post-norm, no warm-up: val accuracy": (_DEEP_RUN.format(r"post-norm, no warm-up"), 1),
        "6 layers, post-norm, warm-up: val accuracy": (_DEEP_RUN.format(r"post-norm, warm-up \d+"), 1),
        "6 layers, pre-norm, no warm-up: val accuracy": (_DEEP_RUN.format(r"pre-norm, no warm-up"), 1),
        "6 layers, pre-norm, warm-up: val accuracy": (_DEEP_RUN.format(r"pre-norm, warm-up \d+"), 1),
        "6 layers, post-norm, no warm-up: training s": (_DEEP_RUN.format(r"post-norm, no warm-up"), 2),
    },
    "06_rnn_seq2seq_attention": {
        "no attention test exact %": (_BOTTLENECK_ROW.format("no attention"), 2),
        "additive test exact %": (_BOTTLENECK_ROW.format("additive"), 2),
        "multiplicative test exact %": (_BOTTLENECK_ROW.format("multiplicative"), 2),
        "additive long exact %": (_BOTTLENECK_ROW.format("additive"), 4),
        "no attention test token accuracy, per sentence %": (_BOTTLENECK_ROW.format("no attention"), 1),
        "no attention free-running token accuracy, pooled %": (
            r"^\s*no attention \|\s+[\d.]+%\s+([\d.]+)%\s+-?[\d.]+%\s*$",
            1,
        ),
    },
    "07_transformer_seq2seq": {
        "greedy exact match test %": (r"^greedy exact match: test ([\d.]+)%", 1),
        "greedy exact match long %": (
            r"^greedy exact match: test [\d.]+% \(\d+ sentences\), long sentences ([\d.]+)%",
            1,
        ),
        "final training loss": (_EPOCH + _LAST_EPOCH, 1),
        "training s": (_EPOCH + _LAST_EPOCH, 2),
    },
    "09_language_model": {
        "BPE training s": (r"^\d+ merges in ([\d.]+) s;", 1),
        "held-out loss per token": (r"^held-out loss ([\d.]+) nats per token = [\d.]+ nats per byte", 1),
        "held-out loss per byte": (r"^held-out loss [\d.]+ nats per token = ([\d.]+) nats per byte", 1),
        "training s": (r"^training took (\d+) s on", 1),
    },
    "10_beyond_text": {
        "learned positions test accuracy %": (r"^positions=learned\s+test accuracy ([\d.]+)%", 1),
        "sin-cos positions test accuracy %": (r"^positions=sincos\s+test accuracy ([\d.]+)%", 1),
        "no positions test accuracy %": (r"^positions=none\s+test accuracy ([\d.]+)%", 1),
        "patch 3 test accuracy %": (r"^patch 3:\s+\d+ tokens\s+test accuracy ([\d.]+)%", 1),
        "patch 6 test accuracy %": (r"^patch 6:\s+\d+ tokens\s+test accuracy ([\d.]+)%", 1),
        "patch 8 test accuracy %": (r"^patch 8:\s+\d+ tokens\s+test accuracy ([\d.]+)%", 1),
        "small CNN test accuracy %": (r"^small CNN:\s+test accuracy ([\d.]+)%", 1),
        "patch memory shape %": (_SLOT_ROW.format("patches"), 3),
        "patch memory whole caption %": (_SLOT_ROW.format("patches"), 5),
        "pooled memory shape %": (_SLOT_ROW.format("pooled"), 3),
        "pooled memory whole caption %": (_SLOT_ROW.format("pooled"), 5),
        "attention on the named object %": (_ALIGNMENT, 1),
        "attention on another scene's object %": (_ALIGNMENT, 2),
        "greedy whole caption %": (r"^greedy: whole captions right ([\d.]+)%", 1),
        "beam whole caption %": (r"^beam 4: whole captions right ([\d.]+)%", 1),
        "painter red-minus-green with 'red'": (r"^red-minus-green paint: ([\d.]+) with 'red'", 1),
        "painter red-minus-green with 'green'": (r"^red-minus-green paint: [\d.]+ with 'red', ([\d.]+) with", 1),
    },
}

# notebook -> the figure each range of its "Expected figures" notes is about, in the order the notes state them
NOTES: dict[str, list[str]] = {
    "04_positional_encoding": [
        "bidirectional, no positions: test accuracy",
        "bidirectional, positions: test accuracy",
        "causal, no positions: test accuracy",
    ],
    "05_encoder_classifier": [
        "CLS test accuracy",
        "mean-pool test accuracy",
        "pre-norm test accuracy",
        "6 layers, post-norm, no warm-up: val accuracy",
        "6 layers, post-norm, warm-up: val accuracy",
        "6 layers, pre-norm, no warm-up: val accuracy",
        "6 layers, pre-norm, warm-up: val accuracy",
    ],
    "06_rnn_seq2seq_attention": [
        "no attention test exact %",
        "additive test exact %",
        "multiplicative test exact %",
        "additive long exact %",
    ],
    "07_transformer_seq2seq": ["greedy exact match test %", "greedy exact match long %", "final training loss"],
    "09_language_model": ["held-out loss per token", "held-out loss per byte"],
    "10_beyond_text": [
        "learned positions test accuracy %",
        "sin-cos positions test accuracy %",
        "no positions test accuracy %",
        "patch 3 test accuracy %",
        "patch 6 test accuracy %",
        "patch 8 test accuracy %",
        "small CNN test accuracy %",
        "sin-cos positions test accuracy %",
        "patch memory whole caption %",
        "pooled memory whole caption %",
        "patch memory shape %",
        "pooled memory shape %",
        "greedy whole caption %",
        "beam whole caption %",
        "attention on the named object %",
        "attention on another scene's object %",
    ],
}


class FigureNotFound(ValueError):
    """A figure's pattern matched no printed line, or more than one: the figure read would be a guess."""


def shifted(source: str, seed: int) -> str:
    """The cell's source with every fixed seed moved by 1000 × seed."""
    if seed == 0:
        return source
    bump = lambda m: f"{m.group(1)}({int(m.group(2)) + 1000 * seed})"  # noqa: E731
    return re.sub(r"(manual_seed|random\.Random|seed_everything)\((\d+)\)", bump, source)


def committed_output(name: str) -> str:
    """What the committed run of the notebook printed (its saved stream outputs, cell by cell)."""
    cells = json.loads((ROOT / "solutions" / f"{name}.ipynb").read_text())["cells"]
    texts = ["".join(o.get("text", "")) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    return "\n".join(texts)


def run_once(name: str, seed: int) -> str:
    """Everything the notebook printed under this seed (seed 0: the committed run's outputs)."""
    if seed == 0:
        return committed_output(name)
    cells = json.loads((ROOT / "solutions" / f"{name}.ipynb").read_text())["cells"]
    code = [shifted("".join(c["source"]), seed) for c in cells if c["cell_type"] == "code"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.ipynb"
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": s} for s in code]}))
        for helper in (ROOT / "solutions").glob("*.py"):
            (Path(tmp) / helper.name).write_bytes(helper.read_bytes())
        sys.path.insert(0, str(ROOT / "tests"))
        import run_cells

        here, buffer = os.getcwd(), io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
                run_cells.run(path)
        finally:
            os.chdir(here)
    return buffer.getvalue()


def read_one(pattern: str, group: int, printed: str) -> float:
    """The number a pattern reads; FigureNotFound unless it matches exactly one printed line."""
    hits = list(re.finditer(pattern, printed, re.M))
    if len(hits) != 1:
        raise FigureNotFound(f"{pattern!r} matched {len(hits)} printed lines, not one")
    return float(hits[0].group(group))


def figure(name: str, label: str, printed: str) -> float:
    """The one printed value of a figure of the notebook."""
    try:
        return read_one(*FIGURES[name][label], printed)
    except FigureNotFound as exc:
        raise FigureNotFound(f"{name}: {label!r}: {exc}") from None


def figures(name: str, printed: str) -> dict[str, float]:
    """Every figure of the notebook that the run printed exactly once."""
    found = {}
    for label in FIGURES[name]:
        with contextlib.suppress(FigureNotFound):
            found[label] = figure(name, label, printed)
    return found


def record(name: str, seed: int, got: dict[str, float]) -> None:
    """Keep one seed's figures in RECORD (seed i at index i of each figure's list)."""
    kept = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    for label, value in got.items():
        values = kept.setdefault(name, {}).setdefault(label, [])
        values.extend([None] * (seed + 1 - len(values)))
        values[seed] = value
    RECORD.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", default="04,05,06,07,09,10")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 .. N-1; seed 0 is the committed run")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help=f"keep the figures in {RECORD.name}")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # the notes state one-thread figures; the runs then also disturb a shared machine less
    names = [n for n in FIGURES if n[:2] in args.notebooks.split(",")]
    for name in names:
        runs = []
        for seed in range(args.first_seed, args.seeds):
            began = time.time()
            got = figures(name, run_once(name, seed))
            runs.append(got)
            if args.write:
                record(name, seed, got)
            shown = ", ".join(f"{k} {v:g}" for k, v in got.items())
            print(f"{name} seed {seed}: {shown} ({time.time() - began:.0f} s for the notebook)", flush=True)
        for label in FIGURES[name]:
            values = [r[label] for r in runs if label in r]
            if values:
                print(f"  {label}: min {min(values):g}, max {max(values):g} over {len(values)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
