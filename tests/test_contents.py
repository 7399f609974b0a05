"""README's notebook table and each notebook's self-check cell are generated from the notebooks' own cells."""

from __future__ import annotations

import contextlib
import importlib.util
import io

import nbformat
import pytest
from conftest import NAMES

from autograder import paths, workbook
from autograder.checks import selfcheck
from autograder.material import answers, contents


def solution(name: str) -> nbformat.NotebookNode:
    return nbformat.read(paths.source_notebook(name), as_version=4)


def test_readme_table_is_generated_from_the_notebooks():
    """Issue 33: README lists every answer cell's functions and classes, the written answers and the points."""
    readme = (paths.ROOT / "README.md").read_text()
    assert contents.notebooks_table(NAMES) in readme, (
        "README's table is stale: run python -m autograder.material.contents"
    )


@pytest.mark.parametrize("name", NAMES)
def test_readme_row_names_every_answer(name):
    """Each answer cell's definitions appear in the notebook's row (a new answer cell cannot be left out)."""
    row = contents.table_row(name)
    for cell in solution(name).cells:
        if answers.is_answer(cell):
            names = contents.defined_names(cell.source) or [answers.grade_id(cell)]
            assert all(f"`{n}`" in row for n in names), (answers.grade_id(cell), row)


@pytest.mark.parametrize("folder", [paths.SOLUTIONS, paths.NOTEBOOKS])
@pytest.mark.parametrize("name", NAMES)
def test_self_check_cell_lists_every_graded_part(name, folder):
    """The self-check cell passes every test and written question with its points, in notebook order."""
    nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    cells = [c for c in nb.cells if contents.is_self_check(c)]
    assert len(cells) == 1
    assert cells[0].source == contents.self_check_source(solution(name)), "run python -m autograder.material.contents"


def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.parametrize("name", NAMES)
def test_self_check_prints_the_table_of_autograder_check(name):
    """Issue 33: the executed notebook's self_check() printed what `python -m autograder check` prints for it.

    selfcheck.parts reads each test's result from the executed cells' outputs, as `check` does after running
    the notebook; the self-check cell's output was printed by the kernel when the notebook ran.
    """
    nb = solution(name)
    printed = stream_text(next(c for c in nb.cells if contents.is_self_check(c)))
    table = workbook.render_table(selfcheck.parts(nb))
    assert printed.rstrip("\n") == table
    assert table in selfcheck.render(name, selfcheck.parts(nb), "")


def test_self_check_fills_points_and_lists_written_questions():
    """The kernel-side table: points shown, a written question marked, a test not yet run named as such."""
    with workbook.checking(workbook.CheckContext()) as context:  # a notebook's own, fresh
        context.parts["test_a"] = {"status": "passed", "message": "", "asserts": 2}
        rows = {"test_a": 2, "test_b": 1, "q_x": 3}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            workbook.self_check(rows, written=["q_x"])
        lines = out.getvalue().splitlines()
        assert lines[1].split() == ["test_a", "2", "✓", "passed"]
        assert lines[2].split()[:4] == ["test_b", "1", "–", "not"]
        assert lines[3].split()[:4] == ["q_x", "3", "✎", "written"]


def test_the_docs_give_the_reexecute_command():
    """Where the instructor guide says to re-execute a solution, it gives the command contents prints."""
    page = (paths.ROOT / "docs" / "instructor" / "authoring.md").read_text()
    assert page.count("re-execute") >= 2
    assert f"`{contents.reexecute_command('NN_topic')}`" in page


@pytest.mark.slow
def test_the_reexecute_command_refreshes_a_solution_in_place(tmp_path):
    """The command, run on a copy of solutions/ as given: outputs anew, nbgrader metadata and sources kept."""
    import shlex
    import shutil
    import subprocess
    import sys

    name = "02_masks"
    (tmp_path / "solutions").mkdir()
    for path in [paths.source_notebook(name), *(paths.SOLUTIONS / f for f in paths.LEARNER_HELPERS)]:
        shutil.copy(path, tmp_path / "solutions" / path.name)  # the helpers' links followed
    nb = solution(name)
    for cell in (c for c in nb.cells if c.cell_type == "code"):  # outputs cleared: the command must make them
        cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, tmp_path / "solutions" / f"{name}.ipynb")
    argv = [sys.executable, "-m", *shlex.split(contents.reexecute_command(name))]  # this Python's jupyter
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    fresh, committed = nbformat.read(tmp_path / "solutions" / f"{name}.ipynb", as_version=4), solution(name)
    assert [c.source for c in fresh.cells] == [c.source for c in committed.cells]
    assert [c.metadata.get("nbgrader") for c in fresh.cells] == [c.metadata.get("nbgrader") for c in committed.cells]
    code = [c for c in fresh.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code) and not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert sum(len(c.outputs) for c in code) == sum(len(c.outputs) for c in committed.cells if c.cell_type == "code")


def test_readme_names_only_what_the_learner_writes():
    """Issue 51: a definition an answer cell gives whole (09's KVCache, graded in 08) is not listed as asked."""
    given = (
        'class KVCache:\n    """Given."""\n\n\ndef sample():\n    ### BEGIN SOLUTION\n    pass\n    ### END SOLUTION\n'
    )
    assert contents.defined_names(given) == ["sample"]
    assert contents.defined_names("def f():\n    return 1\n") == ["f"]  # a cell with no region: all it defines
    assert "`KVCache`" in contents.table_row(NAMES[7]) and "`KVCache`" not in contents.table_row(NAMES[8])


def _root_conftest():
    """The repository's own conftest.py (nbval's settings), loaded by path: tests/conftest.py has the same name."""
    spec = importlib.util.spec_from_file_location("root_conftest", paths.ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_outputs_compared_at_the_full_size_only_are_a_few_plain_cells_of_notebooks_nbval_runs_smaller():
    """A cell tagged FULL_SIZE_ONLY goes uncompared by the suite's nbval run: never a graded cell, never elsewhere."""
    root = _root_conftest()
    tagged = {
        (path.name, index): cell
        for path in sorted(paths.SOLUTIONS.glob("*.ipynb"))
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells)
        if root.FULL_SIZE_ONLY in cell.metadata.get("tags", [])
    }
    assert tagged, "no cell is tagged: the tag (and its exception in conftest.py) can go"
    assert {name for name, _ in tagged} <= set(root.GRADING_SIZE_UNDER_NBVAL)
    assert all(cell.cell_type == "code" and "nbgrader" not in cell.metadata for cell in tagged.values())
    assert len(tagged) <= 2 * len(root.GRADING_SIZE_UNDER_NBVAL)
