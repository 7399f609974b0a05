"""The range a correct run reaches: each training notebook's reference run under other seeds.

    python benchmarks/expected_figures.py [--notebooks 05,06,07] [--seeds 3]

Runs every code cell of solutions/NN_*.ipynb (outside Jupyter, as tests/run_cells.py does) once
per seed, with every `torch.manual_seed(n)` and `random.Random(n)` of the notebook shifted by
1000 × seed (seed 0 is the committed run), reads the figures its training cells print, and
prints each figure per seed with its min and max. These ranges are what the "Expected figures"
notes of the notebooks state. Run it on an otherwise idle machine: the times are part of it.
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

# figure name -> pattern of what the notebook prints (first group: the number)
FIGURES = {
    "05_encoder_classifier": {
        "CLS test accuracy": r"CLS, post-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)",
        "CLS training s": r"trained in ([\d.]+) s",
        "mean-pool test accuracy": r"mean, post-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)",
        "pre-norm test accuracy": r"CLS, pre-norm\s+final val loss [\d.]+\s+test accuracy ([\d.]+)",
    },
    "06_rnn_seq2seq_attention": {
        "no attention test exact %": r"no attention \|\s+[\d.]+%\s+([\d.]+)%",
        "additive test exact %": r"additive \|\s+[\d.]+%\s+([\d.]+)%",
        "multiplicative test exact %": r"multiplicative \|\s+[\d.]+%\s+([\d.]+)%",
        "additive long exact %": r"additive \|\s+[\d.]+%\s+[\d.]+% \|\s+[\d.]+%\s+([\d.]+)%",
    },
    "07_transformer_seq2seq": {
        "greedy exact match test %": r"greedy exact match: test ([\d.]+)%",
        "greedy exact match long %": r"long sentences ([\d.]+)%",
        "final training loss": r"epoch\s+\d+\s+loss ([\d.]+)\s+lr [\d.e-]+\s+\([\d.]+ s\)\s*$",
        "training s": r"epoch\s+\d+\s+loss [\d.]+\s+lr [\d.e-]+\s+\(([\d.]+) s\)\s*$",
    },
}


def shifted(source: str, seed: int) -> str:
    """The cell's source with every fixed seed moved by 1000 × seed."""
    if seed == 0:
        return source
    bump = lambda m: f"{m.group(1)}({int(m.group(2)) + 1000 * seed})"  # noqa: E731
    return re.sub(r"(manual_seed|random\.Random)\((\d+)\)", bump, source)


def run_once(name: str, seed: int) -> str:
    """Everything the notebook printed under this seed."""
    cells = json.loads((ROOT / "solutions" / f"{name}.ipynb").read_text())["cells"]
    code = [shifted("".join(c["source"]), seed) for c in cells if c["cell_type"] == "code"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.ipynb"
        nb = {"cells": [{"cell_type": "code", "source": s} for s in code]}
        path.write_text(json.dumps(nb))
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


def figures(name: str, printed: str) -> dict[str, float]:
    found = {}
    for label, pattern in FIGURES[name].items():
        hits = re.findall(pattern, printed, re.M)
        if hits:
            found[label] = float(hits[-1])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", default="05,06,07")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    names = [n for n in FIGURES if n[:2] in args.notebooks.split(",")]
    for name in names:
        runs = []
        for seed in range(args.seeds):
            began = time.time()
            got = figures(name, run_once(name, seed))
            runs.append(got)
            shown = ", ".join(f"{k} {v:g}" for k, v in got.items())
            print(f"{name} seed {seed}: {shown} ({time.time() - began:.0f} s for the notebook)", flush=True)
        for label in FIGURES[name]:
            values = [r[label] for r in runs if label in r]
            if values:
                print(f"  {label}: min {min(values):g}, max {max(values):g} over {len(values)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
