"""Trusted checks: every test cell runs here, in the grader's process, against the learner's kernel.

The test cell's full source (hidden checks included) is executed in this process with the
notebook's setup cell for context. Names the learner defines resolve to proxies
(autograder.checks.proxy, through autograder.checks.link) that call their code in the kernel
on copies of this process's inputs; the expected values, tolerances, known-mistake comparisons and messages are all
computed here. Every seed a test cell sets is mixed with the course key, the learner's id,
the notebook and the test (autograder.checks.coursekey.derive_seed): each learner and each test cell
draws its own hidden inputs, whatever another one did, and the same ones on every run.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import io
import random
import re
import sys
import types

import numpy as np
import torch

from autograder import workbook as trusted_workbook
from autograder.checks import coursekey, perimeter, pysource
from autograder.checks.clock import RemoteError
from autograder.checks.link import KernelLink, hold, kernel_global
from autograder.checks.proxy import RemoteObject
from autograder.material import answers
from autograder.material.markup import hidden_lines, strip_markers
from autograder.results import TrustedVerdict

_SEEDERS = {"manual_seed", "default_rng", "seed", "RandomState", "Random", "seed_everything"}
_SEED_FN = "__wb_seed__"


class _SecretSeeds(ast.NodeTransformer):
    """Wrap the first argument of every seeding call: `gen.manual_seed(1)` -> `...(__wb_seed__(1))`."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _SEEDERS and node.args:
            node.args[0] = ast.Call(ast.Name(_SEED_FN, ast.Load()), [node.args[0]], [])
        return node


@functools.lru_cache(maxsize=256)
def compiled(source: str, test: str) -> tuple[list[tuple[str, types.CodeType]], list[str], types.CodeType]:
    """A test cell's code with secret seeds, the names it reads, and its definitions alone (once per process).

    The code comes as segments, ("visible" | "hidden", code) in order, so that the checks
    each part makes are counted apart. The definitions (functions, classes, imports,
    literal constants) serve the later cells whether or not this cell ran to them: a
    learner's failure here never takes a helper away from another check.
    """
    tree = ast.fix_missing_locations(_SecretSeeds().visit(pysource.parse(source)))
    segments: list[tuple[str, list[ast.stmt]]] = []
    hidden = hidden_lines(source)
    for node in tree.body:
        kind = "hidden" if node.lineno in hidden else "visible"
        if segments and segments[-1][0] == kind:
            segments[-1][1].append(node)
        else:
            segments.append((kind, [node]))
    codes = [(kind, compile(ast.Module(body, []), f"<{test}>", "exec")) for kind, body in segments]
    return codes, free_names(tree), compile(definitions(tree), f"<{test}:defs>", "exec")


def free_names(tree: ast.Module) -> list[str]:
    """Names a cell reads that it never binds itself (in order of first use)."""
    bound, loaded = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)) if not isinstance(
                node, ast.ClassDef
            ) else None
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    return list(dict.fromkeys(n for n in loaded if n not in bound))


def prelude(source_nb) -> dict:
    """The setup cell executed here (imports, device, helpers), with `workbook` the grader's copy."""
    sys.modules.setdefault("workbook", trusted_workbook)
    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    for cell in source_nb.cells:
        if cell.cell_type == "code" and answers.grade_id(cell) == "setup":
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(cell.source, "<setup>", "exec"), ns)  # noqa: S102 - the instructor's own cell
    return ns


def _message(exc: BaseException) -> str:
    """A learner-facing message for an exception (never a traceback, so never check source)."""
    if isinstance(exc, trusted_workbook.CheckFailure):
        return str(exc)
    if isinstance(exc, RemoteError):
        return f"the grader could not call your code: {exc}"
    if isinstance(exc, NotImplementedError):  # (the learner's, as remote_exception rebuilt it: its builtin)
        return "NotImplementedError: an answer cell this test uses is not implemented yet"
    text = str(exc)
    return (text if ":" in text[:40] else f"{type(exc).__name__}: {text}")[:600]


_TOLD_BY_THE_GRADER = re.compile(
    r"\w{1,40}: (the reply was larger than \d+ MiB \(\d+\.\d MiB of arrays\)"
    r"|the call in the grader's copy of the kernel: (its reply was too large|no reply|it failed \(status -?\d+\))"
    r"|\w{1,80} is refused while this check runs: the notebook's rule asks you to write it yourself)"
)


def _hidden_message(exc: BaseException) -> str:
    """What a learner's own exception on a hidden input may say: its type, never its text.

    The text is the learner's (`raise ValueError(f"{q}")` would print the hidden input into the
    feedback); only the messages the grader's side writes itself (a reply over the cap, a refusal)
    are shown whole.
    """
    text = str(exc)
    if _TOLD_BY_THE_GRADER.fullmatch(text):
        return text
    kind = re.match(r"\w{1,40}", text)
    name = kind.group(0) if kind else type(exc).__name__
    return f"{name} raised by your code on a hidden test's input (its message is not shown: it could hold the input)"


def _no_memory_budget(fn, budget: int) -> bool:
    """Where the worker gave the link no way to measure the kernel's memory: the check cannot pass."""
    raise RemoteError("the grader cannot measure the kernel's memory here, so this check cannot be judged")


class Harness:
    """Runs one notebook's test cells in this process against one learner's kernel.

    `authoring` lists the instructor's own code that failed here (a helper cell's import, a
    test cell's definitions): the worker then reports the notebook as an authoring error to
    the instructor instead of grading the learner against broken checks.
    """

    def __init__(
        self, source_nb, submitted_answers: dict[str, str], link: KernelLink, secret: bytes, learner=("", "")
    ) -> None:
        self.source, self.link, self.secret = source_nb, link, secret
        self.learner: tuple[str, str] = (
            str(learner[0]),
            str(learner[1]),
        )  # (student id, notebook): with the course key, what the seeds are drawn from
        self.base = prelude(source_nb)
        self.learner_names = set().union(*(defined_names(c.source) for c in source_nb.cells if answers.is_answer(c)))
        self.sources = submitted_answers
        self.digest = coursekey.answers_digest(submitted_answers)  # hidden inputs change with any answer
        self.given = [c.source for c in source_nb.cells if c.cell_type == "code" and not answers.is_answer(c)]
        self._globals: dict[str, object] = {}
        self.authoring: list[str] = []
        # names the notebook computes (EPOCHS = scaled(3, 1)): not recomputed here, so a definition
        # that reads one (a default argument) is left undefined, as no test may rely on it
        self.computed = set().union(*(defined_names(c.source) for c in source_nb.cells if c.cell_type == "code"))

    def _define(self, code: types.CodeType, where: str) -> None:
        """Run the instructor's definitions here; a failure is theirs, unless the learner's code raised it."""
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, self.base)  # noqa: S102 - instructor code
        except RemoteError:
            return  # a definition that called the learner's code (a default, a decorator): that code failed
        except NameError as exc:
            if exc.name not in self.computed:
                self.authoring.append(f"{where}: NameError: {str(exc)[:300]}")
        except Exception as exc:  # noqa: BLE001 - reported to the instructor, whatever it is
            self.authoring.append(f"{where}: {type(exc).__name__}: {str(exc)[:300]}")

    def _load_definitions(self) -> None:
        """The learner's names as proxies, and the instructor's helpers (defs, imports, literals) here.

        Helper functions in the notebook's plain cells are the instructor's code: they run in
        this process, and the learner's functions they call are proxies to the kernel.
        """
        for name in sorted(self.learner_names):
            with contextlib.suppress(Exception):
                self.base[name] = kernel_global(self.link, name)
        for index, cell in enumerate(self.source.cells):
            if cell.cell_type != "code" or answers.grade_id(cell) is not None:
                continue
            code = helper_definitions(cell.source)
            if isinstance(code, str):
                self.authoring.append(f"plain cell {index}: SyntaxError: {code}")
                continue
            self._define(code, f"plain cell {index}")

    def _resolve(self, name: str, ns: dict) -> None:
        """A name the test reads from the kernel: the learner's definitions, or plain data and modules."""
        if name in ns or hasattr(builtins, name):
            return
        if name not in self._globals:
            value = kernel_global(self.link, name)
            if isinstance(value, RemoteObject) and name not in self.learner_names and not value._r_module:
                raise RemoteError(f"the test reads {name!r}, which is neither the learner's nor plain data")
            self._globals[name] = value
        ns[name] = self._globals[name]

    def _keep_definitions(self, definitions: types.CodeType, test: str) -> None:
        """Functions, classes and constants a test cell defines (oracles, helpers) serve the later cells too."""
        self._define(definitions, f"the definitions of test {test}")

    def run_test(self, cell) -> TrustedVerdict:
        """Execute one test cell (hidden checks included) here; pass iff it asserted and raised nothing."""
        test = answers.nbgrader_id(cell)
        segments, names, definitions = compiled(cell.source, test)
        seed = functools.partial(coursekey.derive_seed, self.secret, *self.learner, test, answers=self.digest)
        self.base[_SEED_FN] = seed  # helpers of any cell see it too
        ns = dict(self.base)
        context = trusted_workbook.CheckContext(self._hooks())  # this test cell's checks, and only its
        torch.manual_seed(seed("torch"))
        np.random.seed(seed("numpy"))
        random.seed(seed("random"))
        sink, checks, part = io.StringIO(), {"visible": 0, "hidden": 0}, "visible"
        try:
            for name in names:
                if name not in self.base:
                    self._resolve(name, ns)
            with trusted_workbook.checking(context), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                for part, code in segments:
                    before = context.assert_count()
                    try:
                        exec(code, ns)  # noqa: S102 - the instructor's own test
                    finally:
                        checks[part] += max(0, context.assert_count() - before)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure fails this test only
            hidden = part == "hidden" and getattr(exc, "wb_learner", False)
            message = _hidden_message(exc) if hidden else _message(exc)
            return TrustedVerdict(False, message, context.found_forbidden(), checks, part)
        finally:
            self._keep_definitions(definitions, test)
        if not context.asserted():
            return TrustedVerdict(False, "the test checked nothing (an authoring error)", checks=checks)
        return TrustedVerdict(True, "", context.found_forbidden(), checks)

    def _hooks(self) -> trusted_workbook.GraderHooks:
        """How this notebook's checks reach the answer cells' source and the learner's kernel."""
        return trusted_workbook.GraderHooks(
            scanner=lambda names, cells: perimeter.scan(self.sources, names, cells, self.given),
            mutations=lambda: self.link.mutations,
            kernel_copier=functools.partial(hold, self.link),
            memory_budget=self._measured,
        )

    def _measured(self, fn, budget: int) -> bool:
        """fits_in_memory under grading: the OS measures the call, which runs in a copy of the kernel.

        In the copy, whatever the kernel held before the call is shared until written: a buffer
        allocated earlier and filled by the call counts as the call's (autograder.shipped.servant.forked).
        """
        self.link.forking = True
        try:
            return (self.link.memory_budget or _no_memory_budget)(fn, budget)
        finally:
            self.link.forking = False

    def run(self) -> dict[str, TrustedVerdict]:
        """Every test cell of the notebook, in source order, each on its own inputs."""
        self._load_definitions()
        verdicts = {}
        for cell in self.source.cells:
            if answers.is_test(cell):
                rules = perimeter.cell_rules(cell)  # the rule as data, from the instructor's source
                verdict = self.run_ruled(cell, rules) if rules else self.run_test(cell)
                if rules:  # judged whatever the cell did before reaching its rule
                    findings = [
                        f for rule in rules for f in perimeter.scan(self.sources, rule.names, rule.cells, self.given)
                    ]
                    verdict.flags = list(dict.fromkeys(verdict.flags + findings))
                    if findings and verdict.passed:
                        verdict.passed, verdict.message = False, f"{rules[0].message} ({findings[0]})"
                verdicts[answers.nbgrader_id(cell)] = verdict
        return verdicts

    def _beside(self) -> int:
        """How many processes of the job's, not its kernel nor its sandbox's, are alive now (seen from outside)."""
        beside = self.link.beside() if callable(self.link.beside) else None
        return len(beside or ())

    def run_ruled(self, cell, rules: list[perimeter.StatedRule]) -> TrustedVerdict:
        """A test cell whose rule forbids built-ins: run while the kernel refuses them (autograder/shipped/refusal.py).

        Whatever route the learner's code takes to a refused built-in (a stash on an object, another
        cell, a closure), the kernel refuses the call and says so; the cell then fails on its rule.
        """
        names = sorted({n for rule in rules for n in rule.names})
        start = len(self.link.refused)
        before = self._beside()
        try:
            state = self.link.rule(names)
        except RemoteError as exc:
            state = f"no answer ({exc})"
        try:
            verdict = self.run_test(cell)
        finally:
            with contextlib.suppress(RemoteError):
                if state == "armed":
                    self.link.rule(None)
        after = self._beside()
        if before or after:  # a process of the learner's could serve the refused built-in from outside the kernel
            verdict.passed = False
            verdict.message = (
                f"{rules[0].message} (a process your code started was still running beside the kernel while this "
                "test's rule was held: no process may run beside the notebook's kernel when its rule is checked)"
            )
            verdict.flags.append(f"processes beside the kernel during test {answers.nbgrader_id(cell)}")
            return verdict
        refused = list(dict.fromkeys(self.link.refused[start:]))
        if state != "armed":  # a dead kernel fails the cell anyway, with its own reason; anything else is flagged
            if verdict.passed:
                verdict.passed, verdict.message = (
                    False,
                    f"{rules[0].message} (the grader could not hold the rule: {state})",
                )
            if not state.startswith("no answer"):
                verdict.flags.append(
                    f"rule refusal not held in the kernel ({state}) in test {answers.nbgrader_id(cell)}"
                )
        elif refused:
            called = ", ".join(refused[:4])
            verdict.passed = False
            verdict.message = (
                f"{rules[0].message} (while this test ran, your code called {called}, which the rule refuses)"
            )
            verdict.flags.append(f"refused {called} in test {answers.nbgrader_id(cell)}")
        return verdict


@functools.lru_cache(maxsize=1024)
def helper_definitions(source: str) -> types.CodeType | str:
    """A plain cell's definitions, compiled once per process (every job of a notebook runs the same ones);
    its SyntaxError's message where it has one."""
    try:
        tree = pysource.parse(source)
    except SyntaxError as exc:
        return str(exc.msg)
    return compile(definitions(tree), "<helpers>", "exec")


def definitions(tree: ast.Module) -> ast.Module:
    """The statements of a cell that are safe to run outside the kernel, in order (see _is_definition)."""
    return ast.Module([node for node in tree.body if _is_definition(node)], [])


def _is_definition(node: ast.stmt) -> bool:
    """A def, class, import or a name bound to a literal: safe to run outside the kernel.

    `x[1:] = 0.0` assigns a literal too, but into an object the definitions never made: run
    with them, it would raise and take every later helper of the cell with it.
    """
    if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        return True
    if not isinstance(node, ast.Assign) or not all(_binds_names(t) for t in node.targets):
        return False
    try:
        ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def helpers_of_tests(nb) -> list[int]:
    """Plain code cells that only serve the tests: the grader runs them, the learner's kernel never does.

    A cell qualifies when each of its statements is a definition (what the harness runs here,
    see _is_definition) and the names it defines are read by test cells alone, so that no
    answer can call an oracle of the instructor's (its helpers stay out of the kernel).
    """
    trees = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            with contextlib.suppress(SyntaxError):
                trees[index] = pysource.parse(cell.source)
    readers: dict[str, set[int]] = {}
    for index, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                readers.setdefault(node.id, set()).add(index)
    tests = {i for i, cell in enumerate(nb.cells) if answers.is_test(cell)}
    found = []
    for index, tree in trees.items():
        cell = nb.cells[index]
        if answers.grade_id(cell) is not None or not tree.body or not all(_is_definition(n) for n in tree.body):
            continue
        names = set().union(*(_top_level_names(n) for n in tree.body))
        users = set().union(*(readers.get(name, set()) for name in names)) - {index}
        if names and users and users <= tests:
            found.append(index)
    return found


def _top_level_names(node: ast.stmt) -> set[str]:
    """The names one top-level definition binds in the notebook's namespace."""
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _binds_names(target: ast.expr) -> bool:
    """An assignment target made of plain names only (`a`, `a, b`, `[a, (b, c)]`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_binds_names(t) for t in target.elts)
    return isinstance(target, ast.Name)


def defined_names(source: str) -> set[str]:
    """Top-level names an answer cell defines (functions, classes, assignments)."""
    return set(_defined_names(source))


@functools.lru_cache(maxsize=4096)
def _defined_names(source: str) -> frozenset[str]:
    """defined_names, once per source and process: each job reads every cell of its notebook's source."""
    try:
        tree = pysource.parse(strip_markers(source))
    except SyntaxError:
        return frozenset()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(names)
