"""How the suite is split between pytest-xdist's workers (tests/conftest.py): whole scopes, the batch once."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import BATCH_MODULES, xdist_scope
from support import inner_env, inner_pytest

READS_THE_BATCH = """
def test_reads_the_batch(graded_batch):
    assert graded_batch
"""


def test_a_notebooks_cells_a_module_and_the_batch_readers_are_one_scope_each():
    cells = {xdist_scope(f"solutions/02_masks.ipynb::Cell {i}") for i in range(30)}
    assert cells == {"solutions/02_masks.ipynb"}
    assert xdist_scope("tests/test_codec.py::test_a[1]") == xdist_scope("tests/test_codec.py::test_b") != "graded_batch"
    assert {xdist_scope(f"{module}::test_x") for module in BATCH_MODULES} == {"graded_batch"}


def test_a_test_elsewhere_that_reads_the_batch_fails_collection(tmp_path: Path):
    """Rather than grade the whole batch a second time in whichever worker runs it."""
    (tmp_path / "test_elsewhere.py").write_text(READS_THE_BATCH)
    cmd = inner_pytest(tmp_path, "--collect-only", str(tmp_path / "test_elsewhere.py"))
    run = subprocess.run(cmd, cwd=tmp_path, env=inner_env(), capture_output=True, text=True, timeout=120)
    assert run.returncode != 0, run.stdout + run.stderr
    assert "reads the grading batch: add its module to BATCH_MODULES" in run.stdout + run.stderr
