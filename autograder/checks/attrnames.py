"""The strings a computed attribute name can be, read from the answers' source (for checks/perimeter).

getattr(self, f"{n}_proj") is honest when `n` can only be one of a few known strings: a loop over a literal
tuple, or over a module-level constant bound once in the whole program to literal strings (and, for a
list, only ever read). Anything else (a string from data, a call, a mutable list passed around) cannot be
known, and the perimeter says so.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass, field

LOOP_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SAME_STRINGS = frozenset({"sorted", "reversed", "tuple", "list", "frozenset"})  # they return the strings given
_READ_ONLY_CALLS = _SAME_STRINGS | {"enumerate", "zip", "len"}  # they never change a list they are given


@dataclass(frozen=True, kw_only=True)
class Known:
    """What the scan knows where a name is read: whether a name is the built-in, and a module constant's strings."""

    builtin: Callable[[str], bool]
    sequence: Callable[[str], list[str] | None]  # a module constant holding literal strings: the strings
    string: Callable[[str], list[str] | None]  # a module-level name holding one string: the strings it can be
    own_equality: bool = True  # a class of the answers defines __eq__/__ne__/__hash__: a comparison proves nothing
    scopes: tuple = ()  # the scopes around the name read, outermost first (MODULE, then nodes)
    parents: dict = field(default_factory=dict)  # id(node) -> its parent, over the answers' cells


def bindings(tree: ast.AST, name: str) -> list[ast.AST]:
    """Every node under tree that binds or declares `name`, in any form Python has."""
    found: list[ast.AST] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            found.append(n)  # assignment, for/with/comprehension target, walrus, del, augmented assignment
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            found.append(n)
        elif isinstance(n, ast.arg) and n.arg == name or getattr(n, "name", None) == name:
            found.append(n)  # a parameter; def, class, except ... as, match capture
        elif isinstance(n, ast.MatchMapping) and n.rest == name:
            found.append(n)
        elif isinstance(n, (ast.Import, ast.ImportFrom)) and name in [(a.asname or a.name) for a in n.names]:
            found.append(n)
    return found


def literal_strings(node: ast.AST, known: Known | None = None) -> list[str] | None:
    """The strings of a literal tuple or list of string constants (or a module constant holding one), else None."""
    if isinstance(node, ast.Name) and known is not None:
        return _name_sequence(node.id, known)
    if isinstance(node, ast.Call) and known is not None and _same_strings(node, known):
        return literal_strings(node.args[0], known)  # sorted(NAMES), tuple(NAMES): the same strings
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return None
    items = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return items if len(items) == len(node.elts) else None


def _name_sequence(name: str, known: Known) -> list[str] | None:
    """The strings of the sequence a name holds: a local constant of the nearest function binding it, else a
    module constant."""
    for scope in reversed(known.scopes):
        if isinstance(scope, ast.AST) and bindings(scope, name):
            return _local_sequence(name, scope, known) if isinstance(scope, LOOP_SCOPES[:2]) else None
    return known.sequence(name)


def _local_sequence(name: str, scope: ast.AST, known: Known) -> list[str] | None:
    """`names = ("q", "k")` bound once in a function (a list only ever read there): its strings."""
    binds = bindings(scope, name)
    statement = known.parents.get(id(binds[0])) if len(binds) == 1 else None
    if not (isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None):
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    strings = literal_strings(statement.value) if targets == [binds[0]] else None
    if strings is not None and isinstance(statement.value, ast.List):
        return strings if _only_read(name, [scope], known.parents) else None  # type: ignore[list-item]
    return strings


def _counter(name: str, scope: object, known: Known) -> list[str] | None:
    """A name looping over range(...), or enumerate's index: digits, never `_`, so two stand for them all."""
    if not isinstance(scope, LOOP_SCOPES):
        return None
    binds = bindings(scope, name)
    for loop in (g for g in ast.walk(scope) if isinstance(g, (ast.For, ast.comprehension))):
        if len(binds) != 1 or not any(n is binds[0] for n in ast.walk(loop.target)):
            continue
        called = getattr(getattr(loop.iter, "func", None), "id", "")
        if called == "range" and loop.target is binds[0] and known.builtin("range"):
            return ["0", "1"]
        pair = loop.target.elts if isinstance(loop.target, ast.Tuple) else []
        if called == "enumerate" and len(pair) == 2 and pair[0] is binds[0] and known.builtin("enumerate"):
            return ["0", "1"]
    return None


def _same_strings(call: ast.Call, known: Known) -> bool:
    """A call of the built-in sorted, reversed, tuple, list or frozenset on one argument."""
    called = getattr(call.func, "id", "")
    return called in _SAME_STRINGS and len(call.args) == 1 and not call.keywords and known.builtin(called)


def _loop_source(target: ast.AST, iterated: ast.AST, bound: ast.AST, known: Known) -> list[str] | None:
    """What `bound` (the target, or one name of a tuple target) takes from `for target in iterated`: a literal
    sequence of strings directly, through enumerate(literal) or zip(literal, ...), else None."""
    if target is bound:
        return literal_strings(iterated, known)
    if not (isinstance(target, ast.Tuple) and bound in target.elts and isinstance(iterated, ast.Call)):
        return None
    called, at = getattr(iterated.func, "id", ""), target.elts.index(bound)
    if not known.builtin(called):  # an answer's own enumerate could return any string
        return None
    if called == "enumerate" and len(iterated.args) == 1 and not iterated.keywords and len(target.elts) == 2:
        return literal_strings(iterated.args[0], known) if at == 1 else None
    if called == "zip" and len(iterated.args) == len(target.elts):
        return literal_strings(iterated.args[at], known)
    return None


def _loop_strings(name: str, scope: object, known: Known) -> list[str] | None:
    """The strings a name can hold when its only binding in its function or comprehension (declarations, match
    captures and every other form counted) is a loop over literal strings, else None."""
    if not isinstance(scope, LOOP_SCOPES):
        return None
    binds = bindings(scope, name)
    if len(binds) != 1:
        return None
    loops = [(g.target, g.iter) for g in ast.walk(scope) if isinstance(g, (ast.For, ast.comprehension))]
    for target, iterated in loops:
        if any(n is binds[0] for n in ast.walk(target)):
            return _loop_source(target, iterated, binds[0], known)
    return None


def _statement_of(scope: ast.AST, node: ast.AST) -> int | None:
    """The index of the statement of a function's body that holds `node`."""
    body = getattr(scope, "body", [])
    return next((i for i, stmt in enumerate(body) if any(n is node for n in ast.walk(stmt))), None)


def _guarded(name: str, node: ast.AST, scope: object, known: Known) -> list[str] | None:
    """The strings a parameter can be where `if name not in STRINGS: raise ...` came before, at the top of its
    function, and nothing else binds it (with no class of the answers' own defining how strings compare)."""
    if known.own_equality or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    binds = bindings(scope, name)
    at = _statement_of(scope, node)
    if len(binds) != 1 or not isinstance(binds[0], ast.arg) or at is None:
        return None
    for stmt in scope.body[:at]:
        if not isinstance(stmt, ast.If) or stmt.orelse:
            continue
        test = stmt.test
        if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name):
            continue
        if [type(o) for o in test.ops] == [ast.NotIn] and isinstance(stmt.body[-1], ast.Raise):
            return literal_strings(test.comparators[0], known)
    return None


def _name_strings(name: str, scope: object, known: Known, node: ast.AST | None = None) -> list[str] | None:
    """A loop variable over known strings, a parameter checked against them, or a module-level name holding one."""
    found = _loop_strings(name, scope, known)
    if found is None and node is not None:
        found = _guarded(name, node, scope, known) or _counter(name, scope, known)
    if found is None and not (isinstance(scope, LOOP_SCOPES) and bindings(scope, name)):
        found = known.string(name)
    return found


def possible_names(expr: ast.AST, scope: object, known: Known) -> set[str] | None:
    """Every string a name expression can be (literals, f-strings, + and NAMES[i] of known strings), or None."""
    if isinstance(expr, ast.Constant):
        return {expr.value} if isinstance(expr.value, str) else None
    if isinstance(expr, ast.Name):
        found = _name_strings(expr.id, scope, known, expr)
        return None if found is None else set(found)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and not isinstance(expr.slice, ast.Slice):
        found = known.sequence(expr.value.id)  # NAMES[i]: one of NAMES' strings, whatever i is
        return None if found is None else set(found)
    if isinstance(expr, ast.FormattedValue):
        plain = expr.conversion == -1 and expr.format_spec is None
        return possible_names(expr.value, scope, known) if plain else None
    parts = expr.values if isinstance(expr, ast.JoinedStr) else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        parts = [expr.left, expr.right]
    if parts is None:
        return None
    out = {""}
    for part in parts:
        options = possible_names(part, scope, known)
        if options is None:
            return None
        out = {a + b for a in out for b in options}
    return out


def _constant_value(trees: list[ast.Module], binding: ast.AST) -> ast.expr | None:
    """The value of `NAME = ...` / `NAME: T = ...` when `binding` is its only target, at a cell's top level."""
    for stmt in (s for tree in trees for s in tree.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is binding:
            return stmt.value
        if isinstance(stmt, ast.AnnAssign) and stmt.target is binding and stmt.value is not None:
            return stmt.value
    return None


def _only_read(name: str, trees: list[ast.Module], parents: dict[int, ast.AST]) -> bool:
    """Every use of a list constant is a read nothing can change it through: iterated, indexed, or counted."""
    for node in (n for tree in trees for n in ast.walk(tree)):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            continue
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
            continue
        called = getattr(getattr(parent, "func", None), "id", None)
        own = called is not None and any(bindings(tree, called) for tree in trees)  # def sorted(x): x.append(...)
        if isinstance(parent, ast.Call) and called in _READ_ONLY_CALLS and node in parent.args and not own:
            continue
        return False
    return True


def _top_loop(trees: list[ast.Module], binding: ast.AST) -> ast.For | None:
    """The top-level `for` statement whose target holds `binding`, if any."""
    for stmt in (s for tree in trees for s in tree.body):
        if isinstance(stmt, ast.For) and any(n is binding for n in ast.walk(stmt.target)):
            return stmt
    return None


def module_value(
    name: str,
    trees: list[ast.Module],
    parents: dict[int, ast.AST],
    given: frozenset[str],
    seen: frozenset = frozenset(),
) -> tuple[str, list[str]] | None:
    """A module-level name bound once in the whole program (no star import, not a name the notebook's own cells
    bind): ("sequence", strings) for a literal tuple/list of strings (a list only ever read); ("string", the
    strings it can be) for a literal string or the variable of a top-level loop over known strings; else None."""
    star = any(isinstance(n, ast.ImportFrom) and n.names[0].name == "*" for t in trees for n in t.body)
    binds = [b for tree in trees for b in bindings(tree, name)]
    if star or name in given | seen or len(binds) != 1:
        return None
    if (loop := _top_loop(trees, binds[0])) is not None:
        known = Known(
            builtin=lambda n: hasattr(builtins, n) and not any(bindings(t, n) for t in trees),
            sequence=lambda n: of_kind(module_value(n, trees, parents, given, seen | {name}), "sequence"),
            string=lambda n: of_kind(module_value(n, trees, parents, given, seen | {name}), "string"),
        )
        found = _loop_source(loop.target, loop.iter, binds[0], known)
        return None if found is None else ("string", found)
    value = _constant_value(trees, binds[0])
    if isinstance(value, ast.Constant):
        return ("string", [value.value]) if isinstance(value.value, str) else None
    strings = literal_strings(value) if value is not None else None
    if strings is None or isinstance(value, ast.List) and not _only_read(name, trees, parents):
        return None
    return "sequence", strings


def of_kind(value: tuple[str, list[str]] | None, kind: str) -> list[str] | None:
    """The strings of a module_value of that kind, else None."""
    return value[1] if value is not None and value[0] == kind else None
