"""The nbgrader course this package manages: its config written, its sources, nbgrader's generate_assignment.

Where things are in the course folder, and reading its config, is autograder.gradebook.course_folder's.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from autograder import paths
from autograder.gradebook.course_folder import COURSE_ID, RELEASE, SOURCE, CourseFolder
from autograder.material import markup

_CONFIG = """\
# Written by the autograder package; regenerated on every run, do not edit.
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.db_url = {db_url!r}
c.Exchange.root = {exchange!r}  # the course's own (formgrader lists it): never the machine's, unwritable one
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
c.Execute.timeout = {timeout}
c.Execute.kernel_name = "python3"
c.Execute.extra_arguments = []
import sys
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    Execute, LimitOutput, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata, NbGraderPreprocessor,
)
if {checkout!r} not in sys.path:
    sys.path.append({checkout!r})  # the package's checkout, for any Python that runs nbgrader here
try:
    from autograder.gradebook.nbgrader_ext import WarningsAreNotFailures
except ImportError:  # a Python without this package (formgrader alone): nbgrader's own list
    WarningsAreNotFailures = None


class SandboxedGradingOnly(NbGraderPreprocessor):
    # formgrader's Autograde would run learner code unsandboxed: refused (python -m autograder grade does it)
    def preprocess(self, nb, resources):
        raise RuntimeError({refusal!r})


import nbgrader.apps.api as _api
# formgrader's Autograde button calls this: refused before it touches a file (grade restores it)
_real = getattr(_api.NbGraderAPI.autograde, "__wrapped__", _api.NbGraderAPI.autograde)


def _refuse_autograde(self, *args, **kwargs):
    return {{"success": False, "error": {refusal!r}, "log": {refusal!r}}}


_refuse_autograde.__wrapped__ = _real
_api.NbGraderAPI.autograde = _refuse_autograde
c.Autograde.autograde_preprocessors = [
    p for p in (
        SandboxedGradingOnly, Execute, WarningsAreNotFailures, ClearMetadataPreprocessor, LimitOutput,
        SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
    ) if p is not None
]
{extra}
"""
REFUSAL = (
    "Autograde is off in this course: it would run learner code without the grader's sandbox. "
    "Grade with: python -m autograder grade SUBMISSIONS --out RESULTS (then python -m autograder export RESULTS)."
)


@dataclass
class Course(CourseFolder):
    """A course folder (autograder.gradebook.course_folder) as this package sets it up: its config and sources."""

    cell_timeout: int = 120
    extra_config: str = ""

    def write_config(self) -> None:
        """(Re)write nbgrader_config.py so that nbgrader sees only what this package sets."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.exchange_dir.mkdir(exist_ok=True)
        text = _CONFIG.format(
            root=str(self.root),
            exchange=str(self.exchange_dir),
            course_id=COURSE_ID,
            db_url=self.db_url,
            stub=markup.CODE_STUB,
            timeout=self.cell_timeout,
            checkout=str(paths.ROOT),
            refusal=REFUSAL,
            extra=self.extra_config,
        )
        self.config_path.write_text(text)

    def add_source(self, name: str, solutions: Path = paths.SOLUTIONS) -> None:
        """Copy a solution notebook and the helper module into source/<name>/."""
        self.format_path(SOURCE, name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.source_notebook(name, solutions), self.format_path(SOURCE, name, notebook=name))
        shutil.copyfile(paths.WORKBOOK, self.helper_path(SOURCE, name))

    def generate_assignments(self, names: list[str]) -> None:
        """nbgrader generate_assignment, in this process, for each name: student versions in release/<name>/.

        nbgrader's own API on a configuration read afresh from this course's config file (no
        traitlets state is shared between calls or courses); the sources must be in place.
        """
        import nbgrader.api
        from nbgrader.apps import NbGraderAPI
        from traitlets.config import Config

        config = self.load_config()
        extra = Config()
        extra.NbGraderAPI.log_level = "WARN"
        config.merge(extra)
        asks_alembic = nbgrader.api.get_alembic_version
        nbgrader.api.get_alembic_version = alembic_head  # a new gradebook's schema version, without a subprocess
        try:
            api = NbGraderAPI(config=config)
            for name in names:
                outcome = api.generate_assignment(name, force=True, create=True)
                if not outcome.get("success"):
                    log = f"{outcome.get('log', '')[-3000:]}{outcome.get('error', '')[-3000:]}"
                    raise NbgraderError(f"nbgrader generate_assignment {name} failed:\n{log}")
        finally:
            nbgrader.api.get_alembic_version = asks_alembic

    def generate_assignment(self, name: str) -> Path:
        """nbgrader generate_assignment of one notebook: the student version in release/<name>/."""
        self.generate_assignments([name])
        return self.format_path(RELEASE, name, notebook=name)


@functools.cache
def alembic_head() -> str:
    """The schema version nbgrader stamps a new gradebook with, read from its own migration scripts.

    nbgrader asks a subprocess (`alembic heads`, seconds: a Python that imports SQLAlchemy
    and alembic) for the same answer.
    """
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = AlembicConfig()
    config.set_main_option("script_location", ALEMBIC_DIR)
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:
        raise RuntimeError(f"nbgrader's migrations in {ALEMBIC_DIR} name no head")
    return head


class NbgraderError(RuntimeError):
    """An nbgrader command failed; the message holds the end of its log."""


def sources_digest(names: list[str], solutions: Path = paths.SOLUTIONS) -> str:
    """A hash of the source notebooks and the helper module (cache key for derived files)."""
    digest = hashlib.sha256(paths.WORKBOOK.read_bytes())
    for name in names:
        digest.update(name.encode())
        digest.update(paths.source_notebook(name, solutions).read_bytes())
    return digest.hexdigest()[:16]
