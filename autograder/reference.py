"""Reference records: the source notebook run once, trusted, to record what each test expects."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from autograder import answers, paths
from autograder.execute import execute
from autograder.limits import Limits


class ReferenceError(RuntimeError):
    """The instructor's own reference fails a test: an authoring error, not a grading result."""


GRADING_ENV = {
    "WORKBOOK_GRADING": "1",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}
"""What every run under grading shares (small training); the export folder is per run."""


def grading_env(export_dir: Path) -> dict[str, str]:
    """Environment of a notebook run under grading (small training, records exported)."""
    return {**GRADING_ENV, "WORKBOOK_EXPORT": str(export_dir)}


def failing_tests(nb) -> dict[str, str]:
    """Test cells of an executed notebook that raised, with their error."""
    failed = {}
    for cell in nb.cells:
        if answers.is_test(cell):
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errors:
                failed[answers.grade_id(cell)] = f"{errors[0].get('ename')}: {errors[0].get('evalue')}"
    return failed


def build_reference(name: str, out_dir: Path, digest: str) -> Path:
    """Record the reference's values for notebook `name` under out_dir (cached by digest)."""
    target = out_dir / name
    stamp = target / ".digest"
    if stamp.exists() and stamp.read_text() == digest:
        return target / "records"
    if target.exists():
        shutil.rmtree(target)
    work = target / "work"
    work.mkdir(parents=True)
    shutil.copyfile(paths.WORKBOOK, work / "workbook.py")
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    report = execute(nb, work, grading_env(target / "records"), Limits(cell_seconds=300, notebook_seconds=900))
    failed = failing_tests(nb)
    if report.stopped_at is not None or failed:
        raise ReferenceError(f"the reference of {name} fails under grading: {report.reason} {failed}")
    stamp.write_text(digest)
    return target / "records"
