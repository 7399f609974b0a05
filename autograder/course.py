"""The nbgrader course folder this package manages: config, sources, nbgrader commands."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder import paths

COURSE_ID = "attention-workbook"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"

_CONFIG = """\
# Written by the autograder package; regenerated on every run, do not edit.
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.db_url = {db_url!r}
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
c.Execute.timeout = {timeout}
c.Execute.kernel_name = "python3"
c.Execute.extra_arguments = []
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    Execute, LimitOutput, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
)
from autograder.nbgrader_ext import WarningsAreNotFailures
c.Autograde.autograde_preprocessors = [
    Execute, WarningsAreNotFailures, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata,
]
{extra}
"""


@dataclass
class Course:
    """A course folder: source/<nb>/<nb>.ipynb, submitted/, autograded/, gradebook.db."""

    root: Path
    cell_timeout: int = 120
    extra_config: str = ""

    @property
    def db_path(self) -> Path:
        return self.root / "gradebook.db"

    def write_config(self) -> None:
        """(Re)write nbgrader_config.py so that nbgrader sees only what this package sets."""
        self.root.mkdir(parents=True, exist_ok=True)
        text = _CONFIG.format(
            root=str(self.root),
            course_id=COURSE_ID,
            db_url=f"sqlite:///{self.db_path}",
            stub=CODE_STUB,
            timeout=self.cell_timeout,
            extra=self.extra_config,
        )
        (self.root / "nbgrader_config.py").write_text(text)

    def add_source(self, name: str, solutions: Path = paths.SOLUTIONS) -> None:
        """Copy a solution notebook and the helper module into source/<name>/."""
        folder = self.root / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.source_notebook(name, solutions), folder / f"{name}.ipynb")
        shutil.copyfile(paths.WORKBOOK, folder / "workbook.py")

    def nbgrader(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run an nbgrader sub-command in the course folder; raise with its log on failure."""
        run_env = {**os.environ, **(env or {})}
        # nbgrader calls the `alembic` script of its own environment
        run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", "")])
        run_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), run_env.get("PYTHONPATH")]))
        proc = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=self.root,
            env=run_env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise NbgraderError(f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        return proc

    def generate_assignment(self, name: str) -> Path:
        """nbgrader generate_assignment: the student version in release/<name>/."""
        self.nbgrader("generate_assignment", name, "--force", "--log-level=WARN")
        return self.root / "release" / name / f"{name}.ipynb"


class NbgraderError(RuntimeError):
    """An nbgrader command failed; the message holds the end of its log."""


def sources_digest(names: list[str], solutions: Path = paths.SOLUTIONS) -> str:
    """A hash of the source notebooks and the helper module (cache key for derived files)."""
    digest = hashlib.sha256(paths.WORKBOOK.read_bytes())
    for name in names:
        digest.update(name.encode())
        digest.update(paths.source_notebook(name, solutions).read_bytes())
    return digest.hexdigest()[:16]
