"""Peak memory of the grader's process while a kernel streams a lot of output.

    python benchmarks/output_memory.py [--megabytes 1000]

Runs one notebook whose cell prints MB megabytes (in 100 MB writes) and then displays and
updates a large display_id, in a plain kernel, through the grader's own executor; prints the
grader's peak RSS before and after, and the size of the executed notebook.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder.kernel.execute import execute  # noqa: E402
from autograder.kernel.limits import Limits  # noqa: E402
from autograder.kernel.reference import kernel_env  # noqa: E402

FLOOD = """
import sys
chunk = "x" * (100 * 2**20)
for _ in range({n}):
    sys.stdout.write(chunk)
    sys.stdout.flush()
from IPython.display import display, update_display
display("small", display_id="d")
for _ in range(5):
    update_display("y" * (50 * 2**20), display_id="d")
"""


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1000)
    args = parser.parse_args()
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("print('start')"),
        nbformat.v4.new_code_cell(FLOOD.format(n=args.megabytes // 100)),
    ]
    before = peak_mb()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        execute(nb, Path(tmp), kernel_env(), Limits(cell_seconds=300))
    size = len(json.dumps(nb))
    print(f"streamed {args.megabytes} MB + 5 x 50 MB display updates in {time.perf_counter() - t0:.1f} s")
    print(f"grader peak RSS: {before:.0f} MB before, {peak_mb():.0f} MB after; executed notebook {size / 2**20:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
