"""What every pytest run here needs, `pytest solutions` alone included (tests/conftest.py is not read then)."""

from __future__ import annotations

import os
import sys

import pytest

import autograder  # noqa: F401  # first: its guard keeps rfc3987_syntax out (autograder/__init__.py)

# nbval is loaded here, after that guard, rather than by its entry point (pyproject.toml's addopts
# block it, -p no:nbval): its import reads nbformat, whose jsonschema would otherwise compile
# rfc3987_syntax's grammar, 1.4 CPU-s in every pytest process (the controller, each xdist worker).
# Where the entry point loaded it anyway (addopts overridden), it is not loaded twice.
pytest_plugins = () if "nbval.plugin" in sys.modules else ("nbval.plugin",)

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist's workers share the cores: torch, here and in nbval's kernels (which inherit this
    # environment), runs one thread, as the grader's kernels do; two threads each would contend for them
    os.environ["OMP_NUM_THREADS"] = "1"

# nbval runs these solution notebooks at the grading size (WORKBOOK_GRADING=1): their full training (09's
# two to three minutes on two threads, 06's and 07's one to two) is most of nbval's CPU, for outputs nbval
# ignores anyway (their training cells are NBVAL_IGNORE_OUTPUT). Every other output is compared: their toy
# calls and tests do not depend on the size, and the few cells whose output does (the data's size, a
# vocabulary-sized shape, a trained model's translation) carry the tag FULL_SIZE_ONLY: compared at the
# full size only. The full runs are checked where their outputs are made (re-executed, then
# tests/test_content_claims.py) or with WORKBOOK_NBVAL_SIZE=full, which compares every output.
# WORKBOOK_NBVAL_SIZE=grading runs every notebook at the grading size (CI's floor run, with --nbval-lax).
GRADING_SIZE_UNDER_NBVAL = (
    "04_positional_encoding.ipynb",  # its order demonstration trains three models (its outputs are not compared)
    "06_rnn_seq2seq_attention.ipynb",
    "07_transformer_seq2seq.ipynb",
    "09_language_model.ipynb",
    "10_beyond_text.ipynb",
)
FULL_SIZE_ONLY = "nbval-full-size"


def nbval_at_grading_size(notebook: str) -> bool:
    """Whether nbval runs this solution notebook at the grading size (see GRADING_SIZE_UNDER_NBVAL)."""
    size = os.environ.get("WORKBOOK_NBVAL_SIZE", "")
    if size not in ("", "full", "grading"):
        raise pytest.UsageError(f"WORKBOOK_NBVAL_SIZE must be 'full' or 'grading', not {size!r}")
    return size == "grading" or (size == "" and notebook in GRADING_SIZE_UNDER_NBVAL)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """nbval's items are slow like a grading run; at the grading size a FULL_SIZE_ONLY cell's output is not compared."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
            if nbval_at_grading_size(item.path.name) and FULL_SIZE_ONLY in item.cell.metadata.get("tags", []):
                item.options["check"] = False  # its output is the full size's (see GRADING_SIZE_UNDER_NBVAL)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """While nbval starts a notebook's kernel (the setup of its first cell), set the size it runs at.

    Set for every notebook, not inherited (a test that graded in this worker may have left
    WORKBOOK_GRADING=1 in the environment), and put back afterwards: the kernel has read it, and
    the tests that run next in this worker see the environment they would have seen."""
    if item.path.suffix != ".ipynb":
        yield
        return
    before = os.environ.get("WORKBOOK_GRADING")
    if nbval_at_grading_size(item.path.name):
        os.environ["WORKBOOK_GRADING"] = "1"
    else:
        os.environ.pop("WORKBOOK_GRADING", None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("WORKBOOK_GRADING", None)
        else:
            os.environ["WORKBOOK_GRADING"] = before
