"""Which expected values of a notebook's test cells are computed from the learner's own objects.

The rule (test_expected_values.py states why): a value a check compares the learner's answer with
(the `expected` of `check.close` / `check.equal`, and every value of their `mistakes=`) reaches the
learner's code only through the entry points its actual value reaches, if at all.

What a value reaches is read from the source, statement by statement (loop bodies twice):

- a name an answer cell defines is an entry point of its own (`Decoder`, `causal_mask`); so is a
  name the grader reads from the kernel because no grader cell defines it (`kernel:splits`: plain
  data the learner's code can change); an object of a class the notebook defines becomes one
  (`handed:rec`) once it is handed to the learner's code, which calls it back and may change it;
- an attribute of a value reaches that attribute of what the value reaches (`d.embedding` reaches
  `Decoder.embedding`, `d.step(...)` reaches `Decoder.step`); an item, a slice, an arithmetic
  result, a call result reaches everything its parts reach, the callee included;
- a helper defined in the notebook is read at each call, its parameters reaching what their
  arguments reach; where it returns a tuple, each element keeps its own (`mine, oracle =
  torch_pair(...)`: `mine` reaches `MultiHeadAttention`, `oracle` nothing).

So an invariance, which compares the learner's answer with itself on other inputs
(`model(more_pad)` against `model(src)`), passes, and so does a PyTorch module fed the learner's
mask on both sides; a reference built from the learner's parts (`step_ref(d, ...)`, which calls
`d.embedding`, `d.cell` and `d.out` to predict `d.step`) is a finding. Inputs a check sends to the
learner's code are copies (autograder.checks.link), so passing a tensor or a PyTorch module to the
learner's code leaves it the grader's. `check.true` states a property, not an expected value.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from autograder.checks import harness
from autograder.material import answers, markup

Reach = frozenset | tuple  # the entry points a value reaches; a tuple of them for a tuple whose elements differ
NOTHING: frozenset = frozenset()
SINKS = {"close": 2, "equal": 2}  # check method -> position of its expected value
RETURN_SELF = {"eval", "train", "to", "double", "float", "half", "cpu", "cuda", "requires_grad_", "zero_grad"}
COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try)


def flat(reach: Reach) -> frozenset:
    """Everything a value reaches, whatever part of it."""
    return frozenset().union(*map(flat, reach)) if isinstance(reach, tuple) else reach


def union(*reaches: Reach) -> frozenset:
    return frozenset().union(*map(flat, reaches))


@dataclass
class Notebook:
    """What the grader defines and what the learner defines, across a notebook's cells."""

    learner: set[str]
    grader: set[str]
    functions: dict[str, ast.FunctionDef]
    classes: set[str]
    learner_classes: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, nb) -> Notebook:
        cells = [c for c in nb.cells if answers.is_answer(c)]
        learner = set().union(*(harness.defined_names(c.source) for c in cells))
        book = cls(learner, set(dir(builtins)), {}, set(), learner_classes(cells))
        for cell in nb.cells:
            if cell.cell_type == "code" and not answers.is_answer(cell):
                tree = ast.parse(cell.source)
                book.add(tree.body if answers.grade_id(cell) == "setup" else harness.definitions(tree).body)
        book.grader -= learner
        return book

    def add(self, body: list[ast.stmt]) -> None:
        """Statements the grader runs (the setup cell, the definitions of the other cells)."""
        for node in body:
            self.grader |= bound(node)
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes.add(node.name)


def learner_classes(cells) -> set[str]:
    """The classes the answer cells define (calling one gives an object whose attributes are entry points)."""
    names = set()
    for cell in cells:
        try:
            tree = ast.parse(markup.strip_markers(cell.source))
        except SyntaxError:
            continue
        names |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    return names


def bound(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


@dataclass(frozen=True)
class Finding:
    """One expected value that reaches learner code its actual value does not."""

    line: int
    check: str
    text: str
    extra: tuple[str, ...]

    def __str__(self) -> str:
        return f"line {self.line}: {self.check} {self.text!r} reaches {', '.join(self.extra)}"


@dataclass
class Scope:
    """What the names of one cell (or of one helper call) reach, and what was found."""

    book: Notebook
    names: dict[str, Reach] = field(default_factory=dict)
    local: dict[str, ast.FunctionDef] = field(default_factory=dict)  # functions defined in this body
    mine: set[str] = field(default_factory=set)  # names bound to objects of the notebook's own classes
    findings: list[Finding] = field(default_factory=list)
    depth: int = 0

    def name(self, ident: str) -> Reach:
        if ident in self.names:
            return self.names[ident]
        if ident in self.local or ident in self.book.functions:
            return NOTHING
        if ident in self.book.learner:
            return frozenset({ident})
        return NOTHING if ident in self.book.grader else frozenset({f"kernel:{ident}"})

    def expr(self, node: ast.AST | None) -> Reach:
        if node is None or isinstance(node, (ast.Constant, ast.Lambda)):
            return NOTHING  # a lambda runs where it is passed (check.raises): its body is no value here
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Attribute):  # an object's attribute is an entry point; an output's is that output
            return frozenset(p if p.endswith("()") else f"{p}.{node.attr}" for p in union(self.expr(node.value)))
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node)
        return union(*(self.expr(child) for child in ast.iter_child_nodes(node)))

    def subscript(self, node: ast.Subscript) -> Reach:
        value, index = self.expr(node.value), node.slice
        if isinstance(value, tuple) and isinstance(index, ast.Constant) and isinstance(index.value, int):
            with_index = value[index.value] if -len(value) <= index.value < len(value) else union(value)
            return with_index
        return union(value, self.expr(index))

    def element(self, iterable: ast.AST) -> Reach:
        """What one element of an iterable reaches (the elements of a literal merged place by place)."""
        if isinstance(iterable, (ast.Tuple, ast.List)) and iterable.elts:
            items = [self.expr(e) for e in iterable.elts]
            if all(isinstance(i, tuple) and len(i) == len(items[0]) for i in items):
                return tuple(union(*parts) for parts in zip(*items, strict=True))
            return union(*items)
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
            return (NOTHING, self.element(iterable.args[0])) if iterable.args else NOTHING
        return union(self.expr(iterable))

    def comprehension(self, node: ast.AST) -> frozenset:
        inner = Scope(self.book, dict(self.names), self.local, set(self.mine), self.findings, self.depth)
        for gen in node.generators:
            inner.bind(gen.target, inner.element(gen.iter))
            for condition in gen.ifs:
                inner.expr(condition)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return union(*(inner.expr(p) for p in parts))

    def call(self, node: ast.Call) -> Reach:
        args = [*node.args, *(kw.value for kw in node.keywords)]
        reaches = [self.expr(a) for a in args]
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.names:
            helper = self.local.get(func.id) or self.book.functions.get(func.id)
            if helper is not None:
                closure = self.names if func.id in self.local else {}
                return self.helper(helper, node, reaches, closure)
        callee = flat(self.expr(func))
        if callee:  # the learner's code: it may keep, call back and change the check's own objects
            for value in args:
                self.hand_over(value)
        return union(frozenset(map(self.called, callee)), *reaches)

    def called(self, path: str) -> str:
        """What calling an entry point gives: an instance of a learner class (`Decoder<>`, whose attributes are
        entry points), the object itself (nn.Module methods that return self), else that entry point's output."""
        owner, _, method = path.rpartition(".")
        if path.endswith("()"):
            return path
        if path in self.book.learner_classes:
            return f"{path}<>"
        return owner if owner and method in RETURN_SELF else f"{path}()"

    def hand_over(self, value: ast.AST) -> None:
        if isinstance(value, ast.Name) and value.id in self.mine:
            self.names[value.id] = frozenset({f"handed:{value.id}"})

    def helper(self, fn: ast.FunctionDef, node: ast.Call, reaches: list[Reach], closure: dict) -> Reach:
        if self.depth > 8:
            return union(*reaches)
        inner = Scope(self.book, dict(closure), dict(self.local), set(), self.findings, self.depth + 1)
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        for position, param in enumerate(params):
            inner.names[param] = reaches[position] if position < len(node.args) else NOTHING
        for kw, reach in zip(node.keywords, reaches[len(node.args) :], strict=True):
            if kw.arg is not None:
                inner.names[kw.arg] = reach
        for rest in (fn.args.vararg, fn.args.kwarg):
            if rest is not None:
                inner.names[rest.arg] = union(*reaches)
        returned = inner.block(fn.body)
        return NOTHING if returned is None else returned

    def bind(self, target: ast.AST, reach: Reach) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = reach
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                same_shape = isinstance(reach, tuple) and len(reach) == len(target.elts)
                self.bind(elt, reach[i] if same_shape else union(reach))
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            owner = target.value
            while isinstance(owner, (ast.Attribute, ast.Subscript)):
                owner = owner.value
            if isinstance(owner, ast.Name) and owner.id in self.names and flat(reach):
                self.names[owner.id] = union(self.names[owner.id], reach)  # written into the check's object

    def assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        value = node.value
        reach = self.expr(value)
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Attribute) and flat(self.expr(target.value)):
                self.hand_over(value)  # the check's object set on the learner's: the learner's code calls it now
            self.bind(target, reach)
            made = (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self.book.classes
            )
            if isinstance(target, ast.Name) and made:
                self.mine.add(target.id)

    def sink(self, node: ast.Call) -> None:
        actual_node, wanted = compared(node)
        actual = union(self.expr(actual_node)) if actual_node is not None else NOTHING
        for label, value in wanted:
            extra = union(self.expr(value)) - actual
            if extra:
                self.findings.append(Finding(value.lineno, label, ast.unparse(value)[:80], tuple(sorted(extra))))

    def block(self, body: list[ast.stmt]) -> Reach | None:
        """Read statements in order; what the body returns (None: nothing)."""
        returned: list[Reach] = []
        for node in body:
            self.statement(node, returned)
        if not returned:
            return None
        first = returned[0]
        if isinstance(first, tuple) and all(isinstance(r, tuple) and len(r) == len(first) for r in returned):
            return tuple(union(*parts) for parts in zip(*returned, strict=True))
        return union(*returned)

    def statement(self, node: ast.stmt, returned: list[Reach]) -> None:
        if isinstance(node, ast.FunctionDef):
            self.local[node.name] = node
            return
        if not isinstance(node, COMPOUND):  # a compound statement's own statements are read one by one
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
                if isinstance(call.func, ast.Attribute) and call.func.attr in SINKS:
                    self.sink(call)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            self.assign(node)
        elif isinstance(node, ast.AugAssign):
            self.bind(node.target, union(self.expr(node.target), self.expr(node.value)))
        elif isinstance(node, ast.Return):
            returned.append(self.expr(node.value))
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, COMPOUND):
            self.compound(node, returned)

    def compound(self, node: ast.stmt, returned: list[Reach]) -> None:
        passes = 2 if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else 1  # what a pass binds flows back
        for _ in range(passes):
            if isinstance(node, (ast.For, ast.AsyncFor)):
                self.bind(node.target, self.element(node.iter))
            for item in getattr(node, "items", []):
                reach = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, reach)
            handlers = [stmt for h in getattr(node, "handlers", []) for stmt in h.body]
            body = node.body + handlers + getattr(node, "orelse", []) + getattr(node, "finalbody", [])
            for stmt in body:
                if not isinstance(stmt, ast.ClassDef):
                    self.statement(stmt, returned)


def compared(node: ast.Call) -> tuple[ast.AST | None, list[tuple[str, ast.AST]]]:
    """A check call's actual value, and its expected values: (label, value) for `expected` and each mistake."""
    method, position = node.func.attr, SINKS[node.func.attr]
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    actual = keywords.get("actual", node.args[1] if len(node.args) > 1 else None)
    expected = keywords.get("expected", node.args[position] if len(node.args) > position else None)
    wanted = [(method, expected)] if expected is not None else []
    mistakes = keywords.get("mistakes")
    if isinstance(mistakes, ast.Dict):
        wanted += [(f"{method} mistakes", value) for value in mistakes.values]
    elif mistakes is not None:
        wanted.append((f"{method} mistakes", mistakes))
    return actual, wanted


def scan_cell(book: Notebook, source: str) -> list[Finding]:
    """The expected values of one test cell (hidden part included) that reach learner code their actual does not."""
    scope = Scope(book)
    scope.block([n for n in ast.parse(source).body if not isinstance(n, ast.ClassDef)])
    return list(dict.fromkeys(scope.findings))


def scan(nb) -> dict[str, list[Finding]]:
    """Every test cell's findings, by grade_id (cells with none left out)."""
    book = Notebook.read(nb)
    found = {}
    for cell in nb.cells:
        if answers.is_test(cell):
            findings = scan_cell(book, cell.source)
            if findings:
                found[answers.grade_id(cell)] = findings
    return found
