"""CI's AUTOGRADER_REQUIRE_SANDBOX=1: a sandbox test that cannot run fails, naming what is missing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support import inner_env, inner_pytest

TINY = """
import pytest


@pytest.mark.sandbox
def test_needs_the_sandbox():
    assert True
"""


def _run_without_bwrap(tmp_path: Path, require: bool) -> subprocess.CompletedProcess:
    """pytest on one sandbox-marked test, with every folder holding bwrap taken off PATH."""
    (tmp_path / "test_tiny.py").write_text(TINY)
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "bwrap").exists()]
    env = inner_env(PATH=os.pathsep.join(path))
    env.pop("AUTOGRADER_REQUIRE_SANDBOX", None)
    if require:
        env["AUTOGRADER_REQUIRE_SANDBOX"] = "1"
    cmd = inner_pytest(tmp_path, "-rs", str(tmp_path / "test_tiny.py"))
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_without_bwrap_a_sandbox_test_is_skipped(tmp_path):
    run = _run_without_bwrap(tmp_path, require=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 skipped" in run.stdout and "bubblewrap (bwrap) is not installed" in run.stdout


def test_under_require_sandbox_a_missing_bwrap_fails(tmp_path):
    run = _run_without_bwrap(tmp_path, require=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 error" in run.stdout and "skipped" not in run.stdout
    assert "AUTOGRADER_REQUIRE_SANDBOX=1, but the sandbox cannot run here" in run.stdout
    assert "bubblewrap (bwrap) is not installed" in run.stdout
