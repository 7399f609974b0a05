"""What every pytest run here needs, `pytest solutions` alone included (tests/conftest.py is not read then)."""

from __future__ import annotations

import os

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist's workers share the cores: torch, here and in nbval's kernels (which inherit this
    # environment), runs one thread, as the grader's kernels do; two threads each would contend for them
    os.environ["OMP_NUM_THREADS"] = "1"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """nbval's items (the solution notebooks' cells, in full, with their training) are slow like a grading run."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
