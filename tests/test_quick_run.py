"""The quick run (-m "not slow") starts no kernel: conftest's guard fails a test that does."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support import inner_env, inner_pytest

TINY = """
from jupyter_client.manager import KernelManager


def test_starts_a_kernel():
    km = KernelManager(kernel_name="python3")
    try:
        km.start_kernel()
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=True)


def test_starts_none():
    assert KernelManager(kernel_name="python3").has_kernel is False
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_tiny.py").write_text(TINY)
    cmd = inner_pytest(tmp_path, *args, str(tmp_path / "test_tiny.py"))
    return subprocess.run(cmd, cwd=tmp_path, env=inner_env(), capture_output=True, text=True, timeout=300)


def test_a_test_that_starts_a_kernel_fails_the_quick_run(tmp_path):
    run = _pytest(tmp_path, "-m", "not slow")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout, run.stdout
    assert "FAILED" in run.stdout and "test_starts_a_kernel" in run.stdout
    assert "this test starts a Jupyter kernel: mark it slow" in run.stdout
