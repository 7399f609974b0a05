"""The trusted harness: checks run in the grader's process, each on its own secret inputs."""

from __future__ import annotations

import ast
import multiprocessing
import secrets
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
import pytest
from conftest import NAMES
from support import make_submission

from autograder import paths
from autograder.checks import perimeter
from autograder.checks.coursekey import derive_seed
from autograder.checks.harness import (
    Harness,
    _SecretSeeds,
    compiled,
    definitions,
    free_names,
    prelude,
)
from autograder.checks.link import KernelLink
from autograder.kernel import membudget
from autograder.kernel.execute import KernelSession
from autograder.kernel.limits import Limits
from autograder.kernel.reference import kernel_env
from autograder.material import answers
from autograder.material.markup import strip_hidden
from autograder.results import AUTHORING, NotebookResult

BUILTIN = ["scaled_dot_product_attention", "MultiheadAttention"]


@pytest.mark.parametrize(
    "source",
    [
        "out = F.scaled_dot_product_attention(q, k, v)",
        "from torch.nn.functional import scaled_dot_product_attention as f",
        "out = torch.ops.aten._scaled_dot_product_attention_math(q, k, v)",
        "out = torch._C._nn.scaled_dot_product_attention(q, k, v)",
        "f = getattr(F, 'scaled_dot_' + 'product_attention')",
        "f = getattr(F, 'scaled_dot_product_attention')",
        "import importlib\nf = importlib.import_module('torch.nn.functional')",
        "f = __import__('torch').nn.functional",
        "exec('x = 1')",
        "f = eval('F')",
        "import sys\nframe = sys._getframe(1)",
        "import inspect\nframe = inspect.currentframe()",
        "f = vars(F)['scaled_dot_product_attention']",
        "f = F.__dict__['x']",
        "from sys import modules",
        "%time x = 1\nout = F.scaled_dot_product_attention(q, k, v)",
        "m = nn.MultiheadAttention(8, 2)",
    ],
)
def test_forbidden_scan_catches(source):
    assert perimeter.scan({"sdpa": source}, BUILTIN), source


@pytest.mark.parametrize(
    "source",
    [
        "def scaled_dot_product_attention(q, k, v, mask=None):\n    return q @ k.transpose(-2, -1)",
        "import sys\nprint('note', file=sys.stderr)",
        "x = getattr(module, 'weight')",
        "s = torch.softmax(q @ k.mT / math.sqrt(d), dim=-1)",
    ],
)
def test_forbidden_scan_lets_honest_code_through(source):
    assert perimeter.scan({"sdpa": source}, BUILTIN) == []


def test_forbidden_rules_read_from_the_test_cell():
    cell = 'check.forbidden("no_builtin", ["a", "b"], "msg")\ncheck.forbidden("x", ["c"], "m", cells=["t"], probe=f)'
    rules = perimeter.stated_rules(cell)
    assert [(r.names, r.cells, r.message) for r in rules] == [(["a", "b"], None, "msg"), (["c"], ["t"], "m")]


def test_every_seed_is_mixed_with_the_secret():
    code = "g = torch.Generator().manual_seed(1)\nr = np.random.default_rng(3)\ntorch.manual_seed(0)"
    tree = ast.fix_missing_locations(_SecretSeeds().visit(ast.parse(code)))
    assert ast.unparse(tree).count("__wb_seed__(") == 3
    one, two = secrets.token_bytes(32), secrets.token_bytes(32)
    seed = derive_seed(one, "ada", "01_x", "t", 1)
    assert seed != derive_seed(two, "ada", "01_x", "t", 1)  # another course
    assert seed != derive_seed(one, "ben", "01_x", "t", 1)  # another learner
    assert seed != derive_seed(one, "ada", "02_x", "t", 1)  # another notebook
    assert seed != derive_seed(one, "ada", "01_x", "u", 1)  # another test
    assert seed != derive_seed(one, "ada", "01_x", "t", 2)  # another seed of the cell
    assert seed == derive_seed(one, "ada", "01_x", "t", 1)  # the same on every run


def test_free_names():
    code = "gen = torch.Generator()\ndef f(a):\n    return a + b\nout = f(gen) + [x for x in y]"
    assert free_names(ast.parse(code)) == ["torch", "b", "y"]


def test_a_cells_helpers_serve_later_cells_past_a_literal_written_into_an_object():
    """`x[1:] = 0.0` is no definition: kept with them, it raised and took the later helpers away."""
    source = "x = torch.zeros(3)\nx[1:] = 100.0\nLIMIT = 3\ndef oracle(a):\n    return a + LIMIT"
    _, _, definitions = compiled(source, "test_probe")
    ns: dict = {}
    exec(definitions, ns)  # noqa: S102 - a test's own literal source
    assert ns["oracle"](1) == 4


@pytest.mark.parametrize("name", NAMES)
def test_every_test_cells_definitions_run_outside_the_kernel(name):
    """What the harness keeps of each test cell (for the cells after it) runs, in order, with no kernel.

    A kept statement that raises there takes every later helper of its cell away from the
    other checks (01's `mask[0, 1] = False` did, until only names bound to literals were kept).
    """
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    ns = prelude(source)
    for cell in (c for c in source.cells if answers.is_test(c)):
        exec(compiled(cell.source, answers.grade_id(cell))[2], ns)  # noqa: S102 - the instructor's source


def _inject_failure(source: str) -> str:
    """A test cell that fails in the middle (where its hidden checks start, or after its first line)."""
    if "### BEGIN HIDDEN TESTS" in source:
        return source.replace("### BEGIN HIDDEN TESTS\n", "### BEGIN HIDDEN TESTS\nraise RuntimeError('injected')\n", 1)
    first, _, rest = source.partition("\n")
    return f"{first}\nraise RuntimeError('injected')\n{rest}"


def _definitions_only(source: str) -> str:
    """A test cell reduced to what the harness keeps of it for later cells (defs, imports, literals)."""
    return ast.unparse(definitions(ast.parse(source)))


def _broken_helper(source, sources: dict, link: KernelLink) -> list[str]:
    """What the harness reports of a source notebook whose plain helper cell imports a missing module."""
    broken = nbformat.from_dict(source)
    code = "import no_such_module_of_the_instructors\n\ndef helper():\n    return 1\n"
    broken.cells.insert(1, nbformat.v4.new_code_cell(code))
    harness = Harness(broken, sources, link, b"secret")
    harness._load_definitions()
    return harness.authoring


def _variant_outcomes(name: str, work: Path) -> tuple[list[str], dict[str, dict]]:
    """The notebook's test names, and the verdicts of the baseline and of each variant (T failing midway).

    The harness runs the cells in order, each on seeds of its own, so the cells before T run
    exactly as in the baseline whatever T does: a variant runs only their definitions (what
    later cells may use), then T, failing, and every cell after it.
    """
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    nb = make_submission(name, None, base="source")
    for cell in nb.cells:
        if answers.is_test(cell):
            cell.source = strip_hidden(cell.source)
    sources = {answers.grade_id(c): c.source for c in nb.cells if answers.is_answer(c)}
    tests = [answers.grade_id(c) for c in source.cells if answers.is_test(c)]
    work.mkdir(parents=True)
    (work / "workbook.py").write_bytes(paths.WORKBOOK.read_bytes())

    def run_variants(client, deadline) -> dict[str, dict]:
        outcomes: dict[str, dict] = {}
        link = KernelLink(client, 120, deadline + 600)
        link.memory_budget = membudget.for_kernel(client.km)  # as the worker gives it (the unsafe mode's own kernel)
        link.start()
        secret = secrets.token_bytes(32)
        baseline = Harness(source, sources, link, secret)
        outcomes["baseline"] = baseline.run()
        outcomes["authoring"] = {"reference": baseline.authoring, "broken": _broken_helper(source, sources, link)}
        for position, test in enumerate(tests):
            variant, before = nbformat.from_dict(source), set(tests[:position])
            for cell in (c for c in variant.cells if answers.is_test(c)):
                if answers.grade_id(cell) == test:
                    cell.source = _inject_failure(cell.source)
                elif answers.grade_id(cell) in before:
                    cell.source = _definitions_only(cell.source)
            outcomes[test] = Harness(variant, sources, link, secret).run()
        return outcomes

    with KernelSession(nb, work, kernel_env(), Limits(cell_seconds=300, notebook_seconds=900)) as session:
        session.run_cells()
        outcomes = session.run_after(run_variants)
    assert outcomes is not None, session.report.reason
    return tests, outcomes


@pytest.fixture(scope="module")
def isolation_runs(tmp_path_factory) -> dict:
    """Every notebook's variants, two notebooks at a time (each run is one grader process and one kernel)."""
    root = tmp_path_factory.mktemp("isolation")
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        # the later notebooks have the most test cells and the heaviest: started first, they end first
        runs = {name: pool.submit(_variant_outcomes, name, root / name) for name in sorted(NAMES, reverse=True)}
        return {name: run.result() for name, run in runs.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_failing_check_changes_no_other_check(name, isolation_runs):
    """For every test cell T: T failing midway leaves every other test's verdict as it was (passed)."""
    tests, outcomes = isolation_runs[name]
    assert all(v.passed for v in outcomes["baseline"].values()), outcomes["baseline"]
    for position, test in enumerate(tests):
        verdicts = outcomes[test]
        assert not verdicts[test].passed and "injected" in verdicts[test].message
        after = tests[position + 1 :]
        assert [t for t in verdicts if t in after] == after
        changed = {t: verdicts[t].message for t in after if not verdicts[t].passed}
        assert not changed, f"{test} failing changed: {changed}"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_failing_helper_cell_is_the_instructors_error_not_the_learners(name, isolation_runs):
    """The reference's own definitions all run in the grader; a helper that fails is reported as authoring."""
    _, outcomes = isolation_runs[name]
    assert outcomes["authoring"]["reference"] == []
    [problem] = outcomes["authoring"]["broken"]
    assert problem.startswith("plain cell 1: ModuleNotFoundError") and "no_such_module_of_the_instructors" in problem


def test_an_authoring_error_is_an_error_row_and_a_summary_line():
    from autograder.run.report import summary
    from autograder.run.worker import authoring_error

    result = NotebookResult(student_id="ann", notebook="01_x", status="graded", score=3, max_score=11)
    authoring_error(result, ["plain cell 4: ImportError: no module named oracle_lib"])
    assert result.status == "error" and result.score == 0
    assert result.errors[0].startswith(AUTHORING)
    text = summary([result, NotebookResult(student_id="ben", notebook="01_x", status="graded", score=11, max_score=11)])
    assert "AUTHORING ERROR in 01_x (1 submission(s) not graded): plain cell 4: ImportError" in text


def test_a_run_with_an_authoring_error_exits_with_its_own_code():
    from autograder.run import grade
    from autograder.run.worker import authoring_error

    result = NotebookResult(student_id="ann", notebook="01_x", status="graded", score=3, max_score=11)
    assert grade.exit_code([result]) == 0
    authoring_error(result, ["plain cell 4: ImportError: x"])
    assert grade.exit_code([result]) == grade.EXIT_AUTHORING != grade.EXIT_HOST
