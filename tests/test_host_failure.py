"""A kernel that cannot start for a reason of the host's is retried, never scored 0 (real kernels, jobs=1)."""

from __future__ import annotations

import json

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from support import make_submission

from autograder.kernel import launchers
from autograder.kernel.limits import Limits
from autograder.run import grade, pool

pytestmark = pytest.mark.slow
NB01 = "01_scaled_dot_product_attention"


def _failing_starts(monkeypatch, failures: int) -> list[int]:
    """Make the first `failures` kernel starts run a command that exits at once (as a broken host would)."""
    started = [0]

    class FlakyHost(AsyncKernelManager):
        release = staticmethod(lambda: False)  # nothing to clean up: no sandbox (as with --unsafe)

        def format_kernel_cmd(self, extra_arguments=None):
            started[0] += 1
            if started[0] <= failures:
                return ["false"]
            return super().format_kernel_cmd(extra_arguments)

    monkeypatch.setattr(launchers, "manager_class", lambda *args: FlakyHost)
    return started


def _grade(tmp_path):
    subs = tmp_path / "subs" / "ann"
    subs.mkdir(parents=True, exist_ok=True)
    nbformat.write(make_submission(NB01, None), subs / f"{NB01}.ipynb")
    opts = grade.Options(
        submissions=subs.parent,
        out=tmp_path / "out",
        jobs=1,
        sandbox=launchers.choose(unsafe=True),
        limits=Limits(),
        quiet=True,
        in_process=True,
    )
    (result,) = grade.grade(opts)
    return result


def test_a_kernel_that_fails_to_start_once_is_started_again(tmp_path, monkeypatch):
    started = _failing_starts(monkeypatch, failures=1)
    result = _grade(tmp_path)
    assert started[0] == 2
    assert result.status == "graded" and result.score == result.auto_max > 0, result.errors


def _main(tmp_path) -> tuple[int, dict]:
    """`grade` from its command line (unsafe: the failing host is simulated in this process); exit code and row."""
    subs = tmp_path / "subs" / "ann"
    subs.mkdir(parents=True, exist_ok=True)
    nbformat.write(make_submission(NB01, None), subs / f"{NB01}.ipynb")
    out = tmp_path / "out"

    def in_this_process(workers, todo, uid_base, done):  # where the failing host is patched (workers fork elsewhere)
        for slot, job in enumerate(todo):
            done(*pool.run_one(job, slot, uid_base))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool, "parallel", in_this_process)
        code = grade.main([str(subs.parent), "--out", str(out), "--jobs", "1", "--unsafe", "--quiet"])
    (row,) = json.loads((out / "results.json").read_text())["submissions"]
    row["auto_max"] = sum(t["max_score"] for t in row["tests"] if not t.get("manual"))  # written answers: a person's
    return code, row


def test_a_host_that_keeps_failing_gives_an_error_row_that_the_next_run_grades(tmp_path, monkeypatch, capsys):
    _failing_starts(monkeypatch, failures=99)
    code, row = _main(tmp_path)
    assert code == grade.EXIT_HOST, "a run that could not grade must say so to its scheduler"
    assert row["status"] == "error" and row["score"] == 0
    assert row["errors"][0].startswith("host: the kernel did not start"), row["errors"]
    assert "run the same command again" in capsys.readouterr().err
    monkeypatch.undo()  # the host is mended: the same, unchanged submission is graded again
    code, row = _main(tmp_path)
    assert code == 0 and row["status"] == "graded" and row["score"] == row["auto_max"] > 0, row["errors"]


def test_a_sandbox_the_host_cannot_set_up_is_a_host_failure_not_a_grader_error(tmp_path, monkeypatch):
    """A uid the host does not map (a pod's namespace) fails os.chown: that is retried, never kept as final."""
    calls = [0]

    def unmapped_uid(*args):
        calls[0] += 1
        raise OSError(22, "Invalid argument")  # what os.chown says for a uid outside the namespace

    monkeypatch.setattr(launchers, "manager_class", unmapped_uid)
    code, row = _main(tmp_path)
    assert calls[0] == 2 and code == grade.EXIT_HOST  # tried twice in the run, then left for the next run
    assert row["errors"][0].startswith("host: the kernel did not start: its sandbox could not be set up")
    assert not any(e.startswith("grader error") for e in row["errors"]), row["errors"]
    monkeypatch.undo()
    code, row = _main(tmp_path)
    assert code == 0 and row["status"] == "graded" and row["errors"] == [], row["errors"]
