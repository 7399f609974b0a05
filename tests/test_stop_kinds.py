"""Kinds, not strings: retries follow the run's stop kind, results read back typed (unit tests: no kernel)."""

from __future__ import annotations

import ast
import json

import nbformat
import pytest

from autograder import paths
from autograder.kernel.execute import ExecutionReport, StopKind, not_started
from autograder.kernel.limits import Limits
from autograder.results import NotebookResult, Outcome, Status
from autograder.run import worker
from autograder.run.job import Job

NB01 = "01_scaled_dot_product_attention"


def _job(tmp_path) -> Job:
    student = nbformat.read(paths.NOTEBOOKS / f"{NB01}.ipynb", as_version=4)
    return Job(
        student_id="ann",
        notebook=NB01,
        submitted=dict(student),
        content_hash="h",
        source_path=paths.source_notebook(NB01),
        release_path=paths.NOTEBOOKS / f"{NB01}.ipynb",
        secret=b"k" * 32,
        work_root=tmp_path,
        limits=Limits(),
    )


def _runs(monkeypatch, kind: StopKind, reason: str) -> list[int]:
    """Make every run of the job stop with `kind` and `reason` (no kernel); the list counts the runs."""
    calls: list[int] = []

    def stopped(job, nb, work, export, uid, checks):
        calls.append(1)
        return not_started(nb, kind, reason), None

    monkeypatch.setattr(worker, "_run_sandboxed", stopped)
    return calls


def test_a_host_failure_is_retried_once_whatever_its_text(tmp_path, monkeypatch):
    calls = _runs(monkeypatch, StopKind.SANDBOX_FAILED, "no uid to run it as")
    result, _ = worker.run_job(_job(tmp_path))
    assert len(calls) == 2 and result.status is Status.ERROR and result.retry_next_run
    assert result.errors[0] == "host: no uid to run it as (it will be graded again by the next run)"


def test_a_learners_stop_is_not_retried_even_if_its_text_reads_like_a_host_failure(tmp_path, monkeypatch):
    reason = f"{worker.HOST_FAILURE}: the learner's code printed this"
    calls = _runs(monkeypatch, StopKind.DIED, reason)
    result, _ = worker.run_job(_job(tmp_path))
    assert len(calls) == 1 and result.status is Status.GRADED and not result.retry_next_run
    assert result.errors == [reason] and result.score == 0


def test_the_first_stop_is_the_reported_one():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    report = not_started(nb, StopKind.START_FAILED, "first")
    assert (report.kind, report.reason, report.stopped_at) == (StopKind.START_FAILED, "first", 0)
    assert report.kind.host_failure and not StopKind.DIED.host_failure and ExecutionReport().kind is StopKind.NONE


def test_a_saved_result_reads_back_typed_and_writes_the_same_json():
    saved = {
        "student_id": "ann",
        "notebook": NB01,
        "status": "graded",
        "tests": [{"name": "t", "score": 1.0, "max_score": 1.0, "status": "passed", "message": ""}],
    }
    result = NotebookResult.from_dict(saved)
    assert result.status is Status.GRADED and result.tests[0].status is Outcome.PASSED
    again = json.loads(json.dumps(result.to_dict()))
    assert again["status"] == "graded" and again["tests"][0]["status"] == "passed"
    with pytest.raises(ValueError):
        NotebookResult.from_dict({**saved, "status": "great"})  # an unknown status is a malformed file


def _dataclasses() -> dict[str, tuple[int, bool]]:
    """Every dataclass the package defines: (its fields, whether they are keyword-only), by module:name."""
    found = {}
    for path in sorted(paths.ROOT.joinpath("autograder").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                if ast.unparse(call.func if call else deco) in ("dataclass", "dataclasses.dataclass"):
                    fields = [s for s in node.body if isinstance(s, ast.AnnAssign) and "ClassVar" not in ast.unparse(s)]
                    kw = any(k.arg == "kw_only" and ast.literal_eval(k.value) for k in (call.keywords if call else []))
                    found[f"{path.stem}:{node.name}"] = (len(fields), kw)
    return found


WIDE = 5  # more fields than this: every one is keyword-only


def test_wide_dataclasses_are_keyword_only():
    found = _dataclasses()
    named = {"job:Job", "results:NotebookResult", "results:TestResult", "execute:ExecutionReport", "grade:Options"}
    assert named <= set(found) and all(found[n][1] for n in named), {n: found.get(n) for n in named}
    positional = sorted(name for name, (count, kw) in found.items() if count > WIDE and not kw)
    assert not positional, f"wide dataclasses built positionally: {positional}"
    with pytest.raises(TypeError):
        NotebookResult("ann", NB01, Status.GRADED)  # type: ignore[misc]
