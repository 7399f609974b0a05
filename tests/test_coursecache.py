"""The machine's course cache: one build per version of the sources, safe to share, never trusted blindly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from nbgrader.api import Gradebook

from autograder import paths
from autograder.gradebook import course, coursecache
from autograder.gradebook import records as gradebook
from autograder.material import markup

NB01, NB02 = "01_scaled_dot_product_attention", "02_masks"

BUILDER = """
import sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from autograder.gradebook import coursecache

build = coursecache._build
def slow_build(*args):  # widen the window in which two builders could collide
    with open({log!r}, "a") as fh:
        fh.write("build\\n")
    time.sleep(1.0)
    build(*args)
coursecache._build = slow_build
print("ready", flush=True)
sys.stdin.readline()  # both start together
coursecache.materialise([{name!r}], Path(sys.argv[1]), Path({solutions!r}))
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty cache of this test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(coursecache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def solutions(tmp_path) -> Path:
    """A copy of two source notebooks that a test may change."""
    folder = tmp_path / "solutions"
    folder.mkdir()
    for name in (NB01, NB02):
        shutil.copyfile(paths.source_notebook(name), folder / f"{name}.ipynb")
    return folder


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.iterdir() if not p.name.startswith("."))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_location_is_configurable(monkeypatch, tmp_path):
    monkeypatch.setenv(coursecache.CACHE_ENV, str(tmp_path / "here"))
    assert coursecache.root() == tmp_path / "here"
    monkeypatch.delenv(coursecache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert coursecache.root() == tmp_path / "xdg" / "attention-workbook"


def test_two_builders_at_once_make_one_good_entry(cache, solutions, tmp_path):
    log = tmp_path / "builds.log"
    script = BUILDER.format(root=str(ROOT), log=str(log), name=NB01, solutions=str(solutions))
    env = {**os.environ, coursecache.CACHE_ENV: str(cache)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / f"course{i}")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
    assert log.read_text().splitlines() == ["build"], "the second run must wait for the first one's entry"
    (entry,) = _entries(cache)
    assert entry.name == coursecache.key([NB01], solutions)
    assert coursecache._intact(entry, entry.name)
    assert [p.name for p in cache.iterdir() if p.name.startswith(".") and not p.name.endswith(".lock")] == []
    first, second = _files(tmp_path / "course0"), _files(tmp_path / "course1")
    assert first == second and f"release/{NB01}/{NB01}.ipynb" in first and "gradebook.db" in first


def test_a_half_written_entry_is_rebuilt(cache, solutions, tmp_path):
    k = coursecache.key([NB01], solutions)
    half = cache / k / "release" / NB01
    half.mkdir(parents=True)
    (half / f"{NB01}.ipynb").write_text("{half a notebook")  # no manifest: the build never finished
    leftover = cache / f".{k}.build-99999"
    leftover.mkdir()  # a builder that died
    coursecache.materialise([NB01], tmp_path / "course", solutions)
    assert coursecache._intact(cache / k, k)
    assert not leftover.exists()
    nbformat.read(tmp_path / "course" / "release" / NB01 / f"{NB01}.ipynb", as_version=4)  # a whole notebook


def test_an_altered_entry_is_never_used(cache, solutions, tmp_path):
    k = coursecache.materialise([NB01], tmp_path / "first", solutions)
    released = cache / k / "release" / NB01 / f"{NB01}.ipynb"
    good = released.read_bytes()
    released.write_bytes(good.replace(b"NotImplementedError", b"NotImplementedErrorX"))  # manifest kept
    foreign = cache / coursecache.key([NB02], solutions)
    foreign.mkdir()
    (foreign / coursecache.MANIFEST).write_text(json.dumps({"key": "another", "files": {}}))
    coursecache.materialise([NB01], tmp_path / "second", solutions)
    assert (tmp_path / "second" / "release" / NB01 / f"{NB01}.ipynb").read_bytes() == good
    assert released.read_bytes() == good  # rebuilt
    coursecache.materialise([NB02], tmp_path / "third", solutions)
    assert coursecache._intact(foreign, foreign.name)  # a manifest naming another key is not this entry's


def test_a_changed_source_or_engine_changes_the_key(solutions, monkeypatch):
    k = coursecache.key([NB01], solutions)
    assert coursecache.key([NB01], solutions) == k
    assert coursecache.key([NB01, NB02], solutions) not in (k, coursecache.key([NB02], solutions))
    nb = nbformat.read(solutions / f"{NB01}.ipynb", as_version=4)
    nb.cells[0].source += " "
    nbformat.write(nb, solutions / f"{NB01}.ipynb")
    changed = coursecache.key([NB01], solutions)
    assert changed != k
    monkeypatch.setattr(markup, "CODE_STUB", "# YOUR CODE HERE\nraise NotImplementedError('stub')")
    assert coursecache.key([NB01], solutions) != changed
    monkeypatch.setattr(coursecache, "__version__", "0.0.0-other")
    assert coursecache.key([NB01], solutions) != changed


def test_a_course_gets_only_the_notebooks_it_grades(cache, tmp_path):
    setup = course.Course(tmp_path / "out" / ".course")
    gradebook.prepare(setup, [NB01])
    assert sorted(p.name for p in (setup.root / "release").iterdir()) == [NB01]
    assert sorted(p.name for p in (setup.root / "source").iterdir()) == [NB01]
    with Gradebook(f"sqlite:///{setup.db_path}", course.COURSE_ID) as gb:
        assert [a.name for a in gb.assignments] == [NB01]
        assert gb.find_notebook(NB01, NB01).grade_cells
    built = _entries(cache)
    gradebook.prepare(setup, [NB01])  # nothing to do
    gradebook.prepare(setup, [NB01, NB02])  # a new notebook: generated in place, in the existing gradebook
    assert sorted(p.name for p in (setup.root / "release").iterdir()) == [NB01, NB02]
    with Gradebook(f"sqlite:///{setup.db_path}", course.COURSE_ID) as gb:
        assert sorted(a.name for a in gb.assignments) == [NB01, NB02]
    assert _entries(cache) == built, "a gradebook that exists is updated by nbgrader, not replaced"
    assert json.loads((setup.root / ".prepared.json").read_text()) == {
        NB01: coursecache.key([NB01]),
        NB02: coursecache.key([NB02]),
    }
    fresh = course.Course(tmp_path / "again" / ".course")
    gradebook.prepare(fresh, [NB01])  # from the cache: the same files
    assert _files(fresh.root / "release") == {
        k: v for k, v in _files(setup.root / "release").items() if k.startswith(NB01)
    }


@pytest.mark.slow
def test_the_gradebook_schema_version_is_nbgraders(monkeypatch):
    """A new gradebook is stamped in-process with what nbgrader's own `alembic heads` subprocess answers."""
    from nbgrader.api import get_alembic_version

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert course.alembic_head() == get_alembic_version()
