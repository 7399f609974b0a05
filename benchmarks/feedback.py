"""Feedback page export time: nbconvert's HTMLExporter against autograder's FeedbackExporter (same run).

    python benchmarks/feedback.py [--repeat 5]

Exports every source notebook (outputs included) with nbgrader's feedback-like classic
template both ways, alternating, and prints the median seconds per notebook and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # as the CLI does
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nbformat  # noqa: E402
from nbconvert.exporters import HTMLExporter  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.gradebook.nbgrader_ext import FeedbackExporter  # noqa: E402


def seconds(cls, nb) -> float:
    """Wall time of one export."""
    start = time.perf_counter()
    cls(template_name="classic").from_notebook_node(nb)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'notebook':34} {'nbconvert s':>11} {'ours s':>8} {'ratio':>6}")
    for name in paths.notebook_names():
        nb = nbformat.read(paths.source_notebook(name), as_version=4)
        stock, ours = [], []
        for _ in range(args.repeat):
            stock.append(seconds(HTMLExporter, nb))
            ours.append(seconds(FeedbackExporter, nb))
        a, b = statistics.median(stock), statistics.median(ours)
        print(f"{name:34} {a:11.2f} {b:8.2f} {a / b:6.1f}")


if __name__ == "__main__":
    main()
