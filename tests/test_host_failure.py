"""A kernel that cannot start for a reason of the host's is retried, never scored 0 (real kernels, jobs=1)."""

from __future__ import annotations

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from support import make_submission

from autograder import grade, launchers
from autograder.limits import Limits

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
        subs.parent, tmp_path / "out", jobs=1, unsafe=True, limits=Limits(), quiet=True, in_process=True
    )
    (result,) = grade.grade(opts)
    return result


def test_a_kernel_that_fails_to_start_once_is_started_again(tmp_path, monkeypatch):
    started = _failing_starts(monkeypatch, failures=1)
    result = _grade(tmp_path)
    assert started[0] == 2
    assert result.status == "graded" and result.score == result.auto_max > 0, result.errors


def test_a_host_that_keeps_failing_gives_an_error_row_that_the_next_run_grades(tmp_path, monkeypatch):
    _failing_starts(monkeypatch, failures=99)
    result = _grade(tmp_path)
    assert result.status == "error" and result.score == 0
    assert result.errors[0].startswith("host: the kernel did not start"), result.errors
    monkeypatch.undo()  # the host is mended: the same, unchanged submission is graded again
    result = _grade(tmp_path)
    assert result.status == "graded" and result.score == result.auto_max > 0, result.errors
