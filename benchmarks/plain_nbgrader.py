"""Plain nbgrader, for comparison: a stock course folder and `nbgrader autograde`, as documented.

Used by the benchmarks only. Everything here is nbgrader's default behaviour: the
learner's code and the hidden tests share one kernel, run as this user, next to the
source folder and the gradebook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import paths  # noqa: E402

CONFIG = """c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "plain"
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.Execute.timeout = {timeout}
"""


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True, text=True)


def setup_course(root: Path, names: list[str], timeout: int = 60) -> None:
    """A stock nbgrader course with the given notebooks as assignments."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root), timeout=timeout))
    for name in names:
        folder = root / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.source_notebook(name), folder / f"{name}.ipynb")
        shutil.copyfile(paths.WORKBOOK, folder / "workbook.py")
        proc = _nbgrader(root, "generate_assignment", name, "--force")
        if proc.returncode:
            raise RuntimeError(proc.stderr[-2000:])


def autograde(root: Path, name: str, student: str, nb) -> tuple[float | None, float, float, str]:
    """Submit `nb` and autograde it: (score or None if nbgrader failed, max, seconds, log tail)."""
    folder = root / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{name}.ipynb")
    env_grading = {"WORKBOOK_GRADING": "1"}
    os.environ.update(env_grading)
    t0 = time.perf_counter()
    proc = _nbgrader(root, "autograde", name, "--student", student, "--force")
    seconds = time.perf_counter() - t0
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "plain") as gb:
        try:
            sub = gb.find_submission_notebook(name, name, student)
            return sub.score, sub.max_score, seconds, proc.stderr[-300:]
        except Exception:  # noqa: BLE001 - nbgrader failed to record anything
            return None, 0.0, seconds, proc.stderr[-300:]
