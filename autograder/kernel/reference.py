"""The environment every learner kernel starts with, in every sandbox mode: defined here only."""

from __future__ import annotations

import functools
import os

from autograder import paths

GRADING_ENV = {
    "WORKBOOK_GRADING": "1",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}
"""What every run under grading shares (small training cells, one thread, a fixed hash seed)."""

_PASSED_ON = ("PATH", "LANG", "LC_ALL", "TZ")  # of the grader's own environment, only these


def home_env(home: str) -> dict[str, str]:
    """The variables that point at the kernel's private home (and its caches and temporary files)."""
    return {"HOME": home, "MPLCONFIGDIR": f"{home}/mpl", "IPYTHONDIR": f"{home}/ipython", "TMPDIR": home}


def kernel_env(home: str = "/tmp") -> dict[str, str]:
    """A learner kernel's whole environment: nothing else of the grader's is passed on."""
    kept = {k: os.environ[k] for k in _PASSED_ON if k in os.environ}
    return {**kept, **GRADING_ENV, **home_env(home)}


@functools.cache
def kernel_args() -> tuple[str, ...]:
    """What every learner kernel is started with beyond its connection file: autograder/shipped/inert.py,
    refusal.py and seccomp.py (its no-exec filter), each run before any cell in a namespace of its own (hex, so that no quoting of the command
    line touches it)."""
    runs = [(paths.SHIPPED / f"{name}.py").read_text().encode().hex() for name in STARTUP]
    flag = "{'__wb_startup__': True}"
    return (
        "--IPKernelApp.exec_lines=" + "; ".join(f"exec(bytes.fromhex('{code}').decode(), {flag})" for code in runs),
        PLAIN_TRACEBACKS,
    )


PLAIN_TRACEBACKS = "--InteractiveShell.xmode=Plain"
"""A cell's error is shown as Python prints it (file, line, code, error), not with IPython's context: its
context mode reads each frame's module and source (stack_data) and formats every error twice, about
0.4 s of a job's CPU when test cells fail in the kernel (their helpers run in the grader)."""


STARTUP = ("inert", "refusal", "seccomp")
"""autograder/shipped/ files every learner kernel runs as it starts, in this order."""
