"""On a CUDA (or MPS) device: every reference notebook, hidden tests included, runs clean there.

Run where a GPU is: `python -m pytest -m gpu tests/test_gpu.py` (no Jupyter needed: the cells
run in one plain Python namespace).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
ACCELERATOR = torch.cuda.is_available() or (hasattr(torch.backends, "mps") and torch.backends.mps.is_available())

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not ACCELERATOR, reason="no CUDA or MPS device here"),
]


@pytest.mark.parametrize("mode", ["full", "grading"])
@pytest.mark.parametrize("source", SOURCES, ids=[p.stem[:2] for p in SOURCES])
def test_reference_runs_on_the_accelerator(source: Path, mode: str, tmp_path: Path):
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    env.pop("WORKBOOK_GRADING", None)
    if mode == "grading":
        env.update(WORKBOOK_GRADING="1")
    work = tmp_path / "work"
    work.mkdir()
    (work / source.name).write_bytes(source.read_bytes())
    (work / "workbook.py").write_bytes((ROOT / "autograder" / "workbook.py").read_bytes())
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "run_cells.py"), str(work / source.name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    print(run.stdout[-4000:])
    assert "device: cuda" in run.stdout or "device: mps" in run.stdout, "the notebook did not pick the accelerator"
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
