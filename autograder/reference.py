"""The environment every notebook run under grading shares (small training cells)."""

from __future__ import annotations

from pathlib import Path

GRADING_ENV = {
    "WORKBOOK_GRADING": "1",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}
"""What every run under grading shares (small training cells, one thread, a fixed hash seed)."""


def grading_env(export_dir: Path) -> dict[str, str]:
    """Environment of a notebook run under grading; `export_dir` is where the grader's calls are exchanged."""
    return dict(GRADING_ENV)
