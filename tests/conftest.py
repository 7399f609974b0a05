"""Shared fixtures: one course cache, one release and one grading batch, each made once per session."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support import catalogue_submissions, make_submission  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.checks import coursekey  # noqa: E402
from autograder.gradebook import coursecache, release  # noqa: E402
from autograder.kernel import launchers, sandbox  # noqa: E402
from autograder.kernel.limits import Limits  # noqa: E402
from autograder.run import grade  # noqa: E402

NAMES = paths.notebook_names()
SANDBOX_PROBLEM = sandbox.available()
# CI sets this: there, a sandbox test that cannot run is a failure naming what is missing, not a skip
REQUIRE_SANDBOX = os.environ.get("AUTOGRADER_REQUIRE_SANDBOX") == "1"


def sandbox_or_skip() -> None:
    """Skip the calling test where no sandbox can run here; fail it instead under AUTOGRADER_REQUIRE_SANDBOX=1."""
    if SANDBOX_PROBLEM and REQUIRE_SANDBOX:
        pytest.fail(f"AUTOGRADER_REQUIRE_SANDBOX=1, but the sandbox cannot run here: {SANDBOX_PROBLEM}", pytrace=False)
    if SANDBOX_PROBLEM:
        pytest.skip(f"no sandbox: {SANDBOX_PROBLEM}")


def pytest_configure(config) -> None:
    """The sandbox marker, registered here too: a test run with another rootdir (test_ci_sandbox.py) knows it."""
    config.addinivalue_line("markers", "sandbox: needs bubblewrap's sandbox (skipped without, failed under CI)")


def pytest_runtest_setup(item) -> None:
    """A test marked sandbox runs only where the sandbox can, before any of its fixtures is built."""
    if item.get_closest_marker("sandbox"):
        sandbox_or_skip()


# Under pytest-xdist a scope runs in one worker, in order: a module (its fixtures built once), a
# notebook (nbval's cells share one kernel), and the modules that read the session's grading batch,
# together, so that the batch is graded once. A test elsewhere that reads it fails collection.
BATCH_MODULES = (
    "tests/test_bad_input.py",
    "tests/test_catalogue.py",
    "tests/test_colab.py",
    "tests/test_samples.py",
    "tests/test_hidden_leak.py",
)


def xdist_scope(nodeid: str) -> str:
    """The scope a test runs in under pytest-xdist (a module, a notebook, or the grading batch)."""
    module = nodeid.split("::")[0]
    return "graded_batch" if module in BATCH_MODULES else module


# The scopes that take longest, longest first (the suite's --durations at 2e8de87, 2 cores): they start
# first, so that the suite ends on short scopes rather than on one long scope that started last
LONG_SCOPES = (
    "graded_batch",
    "tests/test_attacks.py",
    "tests/test_harness.py",
    "tests/test_gradescope.py",
    "solutions/07_transformer_seq2seq.ipynb",
    "solutions/06_rnn_seq2seq_attention.ipynb",
    "tests/test_shard.py",
    "tests/test_regrades.py",
    "tests/test_browser.py",
)


def scope_rank(scope: str, size: int) -> tuple[int, int]:
    """Where a scope goes in the queue: the long ones in LONG_SCOPES' order, then the rest, largest first."""
    return (LONG_SCOPES.index(scope), 0) if scope in LONG_SCOPES else (len(LONG_SCOPES), -size)


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist schedules whole scopes (xdist_scope): the long ones first, then the largest."""
    from xdist.scheduler import LoadScopeScheduling

    class ByScope(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not getattr(self, "_ranked", False):  # the first call: the queue is complete, nothing sent yet
                ranked = sorted(self.workqueue.items(), key=lambda kv: scope_rank(kv[0], len(kv[1])))
                self.workqueue.clear()
                self.workqueue.update(ranked)
                self._ranked = True
            super()._assign_work_unit(node)

    return ByScope(config, log)


def pytest_collection_modifyitems(config, items) -> None:
    """Scopes are kept; stability runs only when asked for (the root conftest.py marks nbval's items slow)."""
    chosen = "stability" in (config.getoption("-m") or "")
    for item in items:
        if "graded_batch" in getattr(item, "fixturenames", ()) and xdist_scope(item.nodeid) != "graded_batch":
            raise pytest.UsageError(f"{item.nodeid} reads the grading batch: add its module to BATCH_MODULES")
        if "stability" in item.keywords and not chosen:  # over the suite's budget: run when asked for
            item.add_marker(pytest.mark.skip(reason="grading under many keys is long: run it with -m stability"))


def quick_run(config) -> bool:
    """A run that leaves the slow tests out (-m "not slow"): it must start no kernel."""
    return re.search(r"\bnot\s+slow\b", config.getoption("markexpr") or "") is not None


@pytest.fixture(scope="session", autouse=True)
def no_kernel_in_the_quick_run(request) -> Iterator[None]:
    """In a quick run, starting a Jupyter kernel (any KernelManager, in this process or a forked one) fails the test."""
    if not quick_run(request.config):
        yield
        return
    from jupyter_client.manager import KernelManager

    async def refuse(self, **kw):
        raise pytest.fail.Exception("this test starts a Jupyter kernel: mark it slow (the quick run starts none)")

    patch = pytest.MonkeyPatch()
    patch.setattr(KernelManager, "_async_pre_start_kernel", refuse)  # every start_kernel goes through it
    yield
    patch.undo()


class SharedKernels:
    """One kernel fork server per test process, started on first use, for the grading runs that do not
    test the server itself: a server's start (torch and an optimizer's first use, imported in its
    sandbox) is about 2.5 s of CPU, which each of some 40 small runs paid. It serves each run as
    its own would (the same sandbox, a fresh forked kernel per job); only the work root is shared."""

    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        self.held: tuple[Path, Callable[[], launchers.Launch]] | None = None

    def options(self, how: launchers.Launcher) -> dict:
        """Options' work_root and server for a run in mode `how`: {} (its own server) unless it forks kernels."""
        if how.mode != launchers.ForkServerLauncher.mode:
            return {}
        if self.held is None:
            work = Path(tempfile.mkdtemp(prefix="shared-work-"))
            self.stack.callback(shutil.rmtree, work, ignore_errors=True)
            self.held = (work, self.stack.enter_context(how.serving(work, optimizers=True)))
        return {"work_root": self.held[0], "server": self.held[1]}

    def close(self) -> None:
        self.held = None
        self.stack.close()


SHARED_KERNELS = SharedKernels()


@pytest.fixture(scope="session", autouse=True)
def shared_kernels_stop() -> Iterator[None]:
    """The shared fork server (if a run started it) stops with the session."""
    yield
    SHARED_KERNELS.close()


def grade_options(submissions: Path, out: Path, **kw) -> grade.Options:
    """Options of a test's grading run: the sandbox the suite uses, and the test process's shared fork server."""
    if REQUIRE_SANDBOX:  # CI grades in the sandbox, never in the unsafe fallback
        sandbox_or_skip()
    how = kw.pop("sandbox", None) or launchers.choose(trusted=True)
    kw = {"limits": Limits(), "quiet": True, **SHARED_KERNELS.options(how), **kw}
    return grade.Options(submissions=submissions, out=out, sandbox=how, **kw)


def run_grade(submissions: Path, out: Path, jobs: int = 2) -> dict:
    """Grade a folder; results keyed by 'student/notebook'."""
    return {r.key: r for r in grade.grade(grade_options(submissions, out, jobs=jobs))}


@pytest.fixture(scope="session", autouse=True)
def course_cache(tmp_path_factory) -> Iterator[Path]:
    """One course cache for the whole session, empty at its start: each set-up is built once, then shared
    by every release and grading run (subprocesses included, through the environment). Under pytest-xdist
    the workers share it (the folder of their temporary folders): builders in two processes make one entry."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "course-cache"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("course-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(coursecache.CACHE_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def course_key(tmp_path_factory) -> Iterator[Path]:
    """One course key for the whole session, as a course keeps one (shards and subprocesses included)."""
    path = tmp_path_factory.mktemp("course-key") / "course.key"
    coursekey.load(path, create=True)  # made once, as a course's first run does: a named key is never made later
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(coursekey.KEY_ENV, str(path))
        yield path


@pytest.fixture(scope="session")
def released(tmp_path_factory) -> Path:
    """A fresh release of every notebook (and the bundle) into a temporary folder."""
    out = tmp_path_factory.mktemp("release")
    release.release_notebooks(out / "notebooks")
    release.write_bundle(out / "notebooks", out / "bundle.zip")
    return out


@pytest.fixture(scope="session")
def graded_batch(tmp_path_factory) -> dict:
    """The sample submissions, every catalogue entry and the bad inputs, graded in one run.

    Every job has its own kernel and sandbox, so one batch proves what separate runs would,
    and pays a run's fixed costs (fork server, workers, last straggler) once.
    Keys: results ('student/notebook' -> result), out, samples, catalogue (entry file -> key), bad_inputs,
    leaks (notebook -> key: tests/leak_plants.py).
    """
    from bad_inputs import build_bad_inputs
    from leak_plants import build_leak_submissions

    subs = tmp_path_factory.mktemp("batch-submissions")
    shutil.copytree(paths.DATA / "submissions", subs, dirs_exist_ok=True)
    samples = {f"{p.parent.name}/{p.stem}" for p in (paths.DATA / "submissions").glob("*/*.ipynb")}
    catalogue = {}  # entry file -> the key of the submission that holds it
    for name in NAMES:
        for student, files in catalogue_submissions(name):
            (subs / student).mkdir()
            nbformat.write(make_submission(name, files), subs / student / f"{name}.ipynb")
            catalogue.update({path: f"{student}/{name}" for path in files})
    bad_inputs = build_bad_inputs(subs)
    leaks = build_leak_submissions(subs)
    out = tmp_path_factory.mktemp("batch-results")
    results = run_grade(subs, out)
    return {"results": results, "out": out, "samples": samples, "catalogue": catalogue, "bad_inputs": bad_inputs,
            "leaks": leaks}  # fmt: skip


@pytest.fixture(scope="session")
def graded_samples(graded_batch) -> tuple[dict, Path]:
    """The sample submissions in data/submissions, graded (in the session's batch)."""
    results = {k: r for k, r in graded_batch["results"].items() if k in graded_batch["samples"]}
    assert set(results) == graded_batch["samples"]
    return results, graded_batch["out"]


@pytest.fixture(scope="session")
def graded_catalogue(graded_batch) -> dict:
    """Every catalogue entry of every notebook, graded in the session's batch: entry file -> (its
    submission's result, the entries that submission holds).

    Right entries of different cells share a submission, and so do wrong entries that no test
    can tell apart (support.catalogue_submissions).
    """
    packs: dict[str, list[Path]] = {}
    for path, key in graded_batch["catalogue"].items():
        packs.setdefault(key, []).append(path)
    return {path: (graded_batch["results"][key], packs[key]) for path, key in graded_batch["catalogue"].items()}
