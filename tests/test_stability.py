"""Grades are stable across course keys: right answers get full marks under every key, wrong ones lose points.

The reference, every right catalogue pack and the sample submissions are judged under
RIGHT_KEYS keys, every wrong catalogue pack under WRONG_KEYS, each submission's notebook run
once (tests/stability.py). Marked `stability` (and slow): it takes longer than the suite's
budget, so it runs only when asked for, `python -m pytest tests/test_stability.py -m stability`
(WORKBOOK_STABILITY_NOTEBOOKS=01,02 narrows it to some notebooks).
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
import stability
from conftest import NAMES
from support import catalogue_submissions, entry_kind, entry_tests, make_submission

from autograder import paths
from autograder.gradebook import records as gradebook
from autograder.kernel import launchers
from autograder.kernel.limits import Limits
from autograder.results_folder import ResultsFolder
from autograder.run import grade
from autograder.run.worker import Job

RIGHT_KEYS = 20
WRONG_KEYS = 4
pytestmark = [pytest.mark.slow, pytest.mark.stability]
CHOSEN = [n for n in NAMES if n[:2] in os.environ.get("WORKBOOK_STABILITY_NOTEBOOKS", n[:2]).split(",")]


def _submissions() -> list[tuple[str, str, object, str, list[Path]]]:
    """(student, notebook, notebook JSON, kind, catalogue entries) of everything judged."""
    found = []
    for name in CHOSEN:
        found.append(("reference", name, make_submission(name, None), "right", []))
        for student, files in catalogue_submissions(name):
            found.append((student, name, make_submission(name, files), entry_kind(files[0]), files))
        for path in sorted((paths.DATA / "submissions").glob(f"*/{name}.ipynb")):
            found.append((f"sample-{path.parent.name}", name, nbformat.read(path, 4), "sample", []))
    return found


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> dict:
    """Every submission's results under its keys: 'student/notebook' -> (kind, entries, results, error)."""
    out = tmp_path_factory.mktemp("stability")
    course, _ = grade.prepare(ResultsFolder(out), CHOSEN)
    subs, jobs = _submissions(), []
    for student, name, nb, kind, _ in subs:
        keyring = stability.keys(WRONG_KEYS if kind == "wrong" else RIGHT_KEYS)
        job = Job(student_id=student, notebook=name, submitted=dict(nb), content_hash="", source_path=paths.source_notebook(name), release_path=gradebook.release_path(course, name),
                  secret=keyring[0], work_root=out / "work", limits=Limits())  # fmt: skip
        jobs.append((job, keyring))
    done = stability.run(jobs, launchers.choose(trusted=True))
    return {f"{s}/{n}": (kind, files, *done[f"{s}/{n}"]) for s, n, _, kind, files in subs}


def _lost(result) -> list:
    return [t for t in result.tests if t.score < t.max_score and not t.manual]


def test_right_answers_get_full_marks_under_every_key(judged):
    failures = []
    for key, (kind, _, results, error) in judged.items():
        if kind != "right":
            continue
        assert not error and len(results) == RIGHT_KEYS, (key, error)
        for i, result in enumerate(results):
            if result.score != result.auto_max:
                failures.append(f"{key} key {i}: {[(t.name, t.message) for t in _lost(result)]}")
    assert failures == []


def test_samples_grade_the_same_under_every_key(judged):
    for key, (kind, _, results, error) in judged.items():
        if kind != "sample":
            continue
        assert not error and len(results) == RIGHT_KEYS, (key, error)
        verdicts = {tuple((t.name, t.status) for t in r.tests) for r in results}
        assert len(verdicts) == 1, f"{key}: its tests pass under some keys and fail under others: {verdicts}"
        if key.startswith("sample-ada/"):  # the reference answers, as a learner submits them
            assert all(r.score == r.auto_max for r in results), key


def test_wrong_answers_lose_their_points_under_every_key(judged):
    missed = []
    for key, (kind, files, results, error) in judged.items():
        if kind != "wrong":
            continue
        assert not error and len(results) == WRONG_KEYS, (key, error)
        reach = entry_tests(key.split("/")[1], files)
        for i, result in enumerate(results):
            lost = {t.name for t in _lost(result)}
            missed += [f"{path.name} key {i}" for path in files if not lost & reach[path]]
    assert missed == []
