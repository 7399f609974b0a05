"""Which answer cells each test cell depends on, read from the names the notebook's cells bind and load.

The reading is conservative, so that two wrong catalogue entries may share a submission only
when no test can see both (support.catalogue_submissions):
- a cell depends on every name it loads anywhere, function bodies included;
- a name only gains dependencies, except where a plain `name = value` rebinds it (at top level,
  or in a loop's body, which is read pass after pass until nothing new flows, as it may run
  any number of times);
- a function's body is resolved where the function is used, not where it is defined;
- a cell that loads an object (a name bound by an assignment, not a def, class or import)
  may change it in place, so the object takes on everything that cell depends on;
- a cell that cannot be parsed depends on, and may change, everything before it.
"""

from __future__ import annotations

import ast
import functools
import symtable
from dataclasses import dataclass, field

from autograder.material import answers, markup

OPAQUE = "*"  # the dependency of a name or test that cannot be read: every answer cell


@dataclass
class Statement:
    """What one top-level statement binds, loads when it runs, and loads in the bodies of the functions it defines."""

    bound: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)  # the bound names that are objects (assigned, not def/class/import)
    replaces: bool = False  # a plain `name = value` at top level: the names it binds lose what they had
    executed: set[str] = field(default_factory=set)
    bodies: dict[str, set[str]] = field(default_factory=dict)  # def/class name -> names its bodies load

    @property
    def loaded(self) -> set[str]:
        return self.executed.union(*self.bodies.values())


def _parse(source: str) -> ast.Module | None:
    """The cell's code, without solution markers and IPython lines (% magics, ! shell); None if unreadable."""
    lines = markup.strip_markers(source).splitlines()
    try:
        return ast.parse("\n".join(ln for ln in lines if not ln.lstrip().startswith(("%", "!"))))
    except SyntaxError:
        return None


def _module_reads(table: symtable.SymbolTable) -> set[str]:
    """The module names a function, class or comprehension scope reads, its inner scopes included."""
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
    return names.union(*(_module_reads(child) for child in table.get_children()))


def _fresh(node: ast.stmt) -> set[str]:
    """Names a for or with statement binds before its body reads them (the loop variable, the `as` name)."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    else:
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


_DEF = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statement(node: ast.stmt) -> Statement:
    """The names one top-level statement binds and reads, scope by scope (symtable: locals are not names)."""
    table = _table(node)
    top = {s.get_name(): s for s in table.get_symbols()}
    found = Statement(bound={n for n, s in top.items() if s.is_assigned() or s.is_imported()})
    if isinstance(node, _DEF):
        (scope,) = [t for t in table.get_children() if t.get_name() == node.name]
        found.executed = {n for n, s in top.items() if s.is_referenced()}
        if isinstance(node, ast.ClassDef):  # the class body runs now, its methods when called
            found.executed |= {s.get_name() for s in scope.get_symbols() if s.is_referenced() and s.is_global()}
        found.bodies[node.name] = _module_reads(scope)
        return found
    found.executed = _reads(table) - _fresh(node)
    for inner in (n for n in ast.walk(node) if isinstance(n, _DEF)):  # a def inside an if or a try
        found.bodies[inner.name] = found.executed
    declared = {s.get_name() for t in table.get_children() for s in _all_symbols(t) if s.is_declared_global()}
    found.bound |= declared
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        found.objects = found.bound - set(found.bodies)
    simple = isinstance(node, ast.Assign) and all(_names_only(t) for t in node.targets)
    found.replaces = (simple or bool(_fresh(node))) and not declared
    return found


def _table(node: ast.AST) -> symtable.SymbolTable:
    return symtable.symtable(ast.unparse(node), "<cell>", "exec")


def _reads(table: symtable.SymbolTable) -> set[str]:
    """The module names a statement or expression reads, its comprehensions' and lambdas' included."""
    own = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    return own.union(*(_module_reads(t) for t in table.get_children()))


def _all_symbols(table: symtable.SymbolTable) -> list[symtable.Symbol]:
    return table.get_symbols() + [s for child in table.get_children() for s in _all_symbols(child)]


@dataclass
class Loop:
    """A top-level for or while loop: its header, then its body, which may run any number of times."""

    header: Statement
    body: tuple
    orelse: tuple


def _steps(nodes: list[ast.stmt]) -> tuple:
    """Statements as steps: a loop's body is kept apart, so that names bound in it before they are read count."""
    out = []
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and not _declares(node):
            target = _fresh(node) if not isinstance(node, ast.While) else set()
            header = Statement(target, set(target), bool(target), _reads(_table(node.iter if target else node.test)))
            out.append(Loop(header, _steps(node.body), _steps(node.orelse)))
        else:
            out.append(statement(node))
    return tuple(out)


def _names_only(target: ast.expr) -> bool:
    """An assignment target made of names only (`a`, `a, b`, `[a, (b, c)]`): it rebinds them all."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_names_only(t) for t in target.elts)
    return isinstance(target, ast.Name)


def _declares(node: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node))


@functools.lru_cache(maxsize=4096)
def cell_steps(source: str) -> tuple | None:
    """A cell's top-level statements as steps, in order; None if the cell cannot be parsed (read once per source)."""
    tree = _parse(source)
    return None if tree is None else _steps(tree.body)


class Dependencies:
    """Reads a notebook's cells in order and keeps, per name, the answer cells (grade_ids) it may depend on."""

    def __init__(self) -> None:
        self.deps: dict[str, set[str]] = {}
        self.bodies: dict[str, set[str]] = {}  # function or class name -> the names its bodies load
        self.objects: set[str] = set()
        self.opaque = False  # a cell before could not be read: everything after may depend on anything
        self.tests: dict[str, set[str]] = {}

    def reach(self, names: set[str]) -> set[str]:
        """These names and every name the bodies of the functions among them load, transitively."""
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(self.bodies.get(name, ()))
        return seen

    def take(self, found: Statement, own: set[str]) -> set[str]:
        """Take one statement into account; returns what it depends on."""
        depends = set(own).union(*(self.deps.get(n, set()) for n in self.reach(found.loaded)))
        for name in found.bound:
            if found.replaces:
                self.deps[name], self.bodies[name] = set(depends), set()
            else:
                self.deps.setdefault(name, set()).update(depends)
        for name, body in found.bodies.items():
            self.bodies.setdefault(name, set()).update(body)
        self.objects = (self.objects - found.bound if found.replaces else self.objects) | found.objects
        for name in self.reach(found.executed) & self.objects:  # this statement may change them in place
            self.deps[name].update(depends)
        return depends

    def run(self, steps: tuple, own: set[str]) -> set[str]:
        """Take steps in order; a loop's body until its names hold nothing new (a loop may run any number of times)."""
        depends = set(own)
        for step in steps:
            if isinstance(step, Statement):
                depends |= self.take(step, own)
                continue
            before = seen = self._state()  # (_merge only reads a snapshot: the first pass shares it)
            while True:  # pass after pass until nothing new can flow: a pass may read what the one before bound
                depends |= self.take(step.header, own) | self.run(step.body, own)
                self._merge(seen)  # the loop may stop after any pass
                if _size(self.deps, self.bodies, self.objects) == _size(*seen):  # merged: a superset, so the same
                    break
                seen = self._state()
            self._merge(before)  # or not run at all
            depends |= self.run(step.orelse, own)
        return depends

    def _state(self) -> tuple:
        return {k: set(v) for k, v in self.deps.items()}, {k: set(v) for k, v in self.bodies.items()}, set(self.objects)

    def _merge(self, state: tuple) -> None:
        """Either what is now or what was then: each name may hold what it held in either."""
        deps, bodies, objects = state
        for mine, theirs in ((self.deps, deps), (self.bodies, bodies)):
            for name, values in theirs.items():
                held = mine.get(name)
                if held is None:
                    mine[name] = set(values)
                elif values:  # (no empty set made and thrown away per name: this runs millions of times)
                    held |= values
        self.objects |= objects

    def read(self, cell) -> None:
        """Take one cell into account (cells must come in notebook order)."""
        if cell.get("cell_type") != "code":
            return
        steps = cell_steps(cell.source)
        self.opaque |= steps is None
        own = {answers.grade_id(cell)} if answers.is_answer(cell) else set()
        own |= {OPAQUE} if self.opaque else set()
        depends = self.run(steps or (), own)
        if answers.is_test(cell):
            self.tests[answers.grade_id(cell)] = depends


def _size(deps: dict[str, set[str]], bodies: dict[str, set[str]], objects: set[str]) -> int:
    """Names and what they hold, counted: of two states one of which holds the other, equal only when equal."""
    return len(deps) + sum(map(len, deps.values())) + len(bodies) + sum(map(len, bodies.values())) + len(objects)


def answer_dependencies(nb) -> dict[str, set[str]]:
    """Test cell grade_id -> the answer cells (grade_ids) it may depend on; OPAQUE stands for all of them."""
    reader = Dependencies()
    for cell in nb.cells:
        reader.read(cell)
    everything = set(answers.answer_ids(nb))
    return {test: (everything if OPAQUE in deps else deps) for test, deps in reader.tests.items()}
