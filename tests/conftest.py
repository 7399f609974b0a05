"""Shared fixtures: one release and a few grading runs, each done once per session."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support import catalogue_entries, make_submission  # noqa: E402

from autograder import coursecache, grade, paths, release, sandbox  # noqa: E402
from autograder.limits import Limits  # noqa: E402

NAMES = paths.notebook_names()
SANDBOX_PROBLEM = sandbox.available()


def pytest_collection_modifyitems(items) -> None:
    """nbval's items (the solution notebooks' cells, in full, with their training) are slow like a grading run."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)


def run_grade(submissions: Path, out: Path, jobs: int = 2) -> dict:
    """Grade a folder; results keyed by 'student/notebook'."""
    opts = grade.Options(submissions, out, jobs=jobs, unsafe=bool(SANDBOX_PROBLEM), limits=Limits(), quiet=True)
    return {r.key: r for r in grade.grade(opts)}


@pytest.fixture(scope="session", autouse=True)
def course_cache(tmp_path_factory) -> Iterator[Path]:
    """One course cache for the whole session, empty at its start: each set-up is built once, then shared
    by every release and grading run (subprocesses included, through the environment)."""
    folder = tmp_path_factory.mktemp("course-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(coursecache.CACHE_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session")
def released(tmp_path_factory) -> Path:
    """A fresh release of every notebook (and the bundle) into a temporary folder."""
    out = tmp_path_factory.mktemp("release")
    release.release_notebooks(out / "notebooks")
    release.write_bundle(out / "notebooks", out / "bundle.zip")
    return out


@pytest.fixture(scope="session")
def graded_samples(tmp_path_factory) -> tuple[dict, Path]:
    """The sample submissions in data/submissions graded once."""
    out = tmp_path_factory.mktemp("samples-results")
    return run_grade(paths.DATA / "submissions", out), out


@pytest.fixture(scope="session")
def graded_catalogue(tmp_path_factory) -> tuple[dict, dict]:
    """Every catalogue entry of every notebook as one learner's submission, graded in one run."""
    subs = tmp_path_factory.mktemp("catalogue-submissions")
    entries = {}
    for name in NAMES:
        for path in catalogue_entries(name):
            student = f"{name[:2]}-{path.stem}".replace("_", "-")
            (subs / student).mkdir()
            nbformat.write(make_submission(name, path), subs / student / f"{name}.ipynb")
            entries[f"{student}/{name}"] = path
    return run_grade(subs, tmp_path_factory.mktemp("catalogue-results")), entries
