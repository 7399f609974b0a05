"""Run a notebook's code cells in order in one namespace, without Jupyter; print each cell's time.

Used where Jupyter is not installed (the GPU check): `python tests/run_cells.py NOTEBOOK`.
Exits 1 if any cell raised. Figures are closed, not shown.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path


def run(path: Path) -> int:
    """Execute every code cell of `path` in its folder; return the number of cells that raised."""
    cells = json.loads(path.read_text())["cells"]
    os.chdir(path.parent)
    sys.path.insert(0, str(path.parent))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.show = lambda *args, **kwargs: plt.close("all")  # no display: a shown figure is done with
    namespace = {"__name__": "__main__"}
    errors, start = 0, time.time()
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if source.lstrip().startswith(("%", "!")):
            continue  # IPython magics and shell escapes need IPython
        began = time.time()
        try:
            exec(compile(source, f"<{path.name} cell {i}>", "exec"), namespace)
            status = "ok"
        except Exception as exc:  # noqa: BLE001 - every failure is reported, then the run goes on
            errors += 1
            status = f"ERROR {type(exc).__name__}: {str(exc)[:300]}"
            traceback.print_exc()
        print(f"[cell {i:>2} {time.time() - began:7.2f}s] {status} | {source.splitlines()[0][:70]}", flush=True)
    print(f"[{path.name}] {time.time() - start:.1f}s, {errors} cell(s) raised", flush=True)
    return errors


if __name__ == "__main__":
    sys.exit(1 if run(Path(sys.argv[1]).resolve()) else 0)
