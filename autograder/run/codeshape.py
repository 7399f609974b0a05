"""codeshape: answer code as the shapes of its syntax trees, for the similarity report.

Code is parsed and every expression and statement gets a hash of its shape: its kind, the
shapes of its children, and only the names nobody chooses (Python's builtins, the modules the
notebook imports, under their module's name whatever the alias, the attributes and keyword
names of their APIs, numbers). Every name a learner picks or the contract dictates (locals,
parameters, functions, classes, `self.<name>`, the keywords of calls to them) is one
placeholder, docstrings, comments, annotations and `pass` are gone, and strings are one
placeholder too. Order that changes nothing is not part of a shape: a block's statements, a
call's keyword arguments, the operands of `+`, `*`, `&`, `|`, `^`, `==`, `!=`, `and`, `or`, and
`a > b` is `b < a`. Two answers share code where a subtree of at least MIN_NODES nodes has the
same hash on both sides, wherever it sits: renaming, reformatting, reordered statements and
operands, dead code and code moved into helpers leave the shared subtrees as they are.
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
from collections import deque
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass, field

MIN_NODES = 8  # the smallest subtree that counts as shared code (measured: benchmarks/similarity.py)
STARTER_NODES = 3  # the starter code's subtrees from this size up are the contract's, never the learner's
PLACEHOLDER = "_"
_KEPT_NAMES = frozenset(dir(builtins)) - {"_"}
_SKIPPED = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop, ast.alias, ast.type_ignore)
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)  # not @: matrices do not commute
_SYMMETRIC = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_FLIPPED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}  # a > b is b < a


@dataclass(kw_only=True)
class Shape:
    """One parsed answer cell: its subtrees' hashes, sizes and source spans (starter code left out)."""

    sizes: dict[int, int] = field(default_factory=dict)  # node index -> nodes it counts (own subtree)
    hashes: dict[int, bytes] = field(default_factory=dict)  # node index -> shape hash
    children: dict[int, list[int]] = field(default_factory=dict)
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)  # node index -> (start, end) in the source
    roots: list[int] = field(default_factory=list)
    counted: int = 0  # nodes that are the learner's own (not in the starter code)
    imports: dict[str, str] = field(default_factory=dict)  # names the code binds by import -> their module

    _big: frozenset[bytes] | None = field(default=None, repr=False, compare=False)

    def big(self) -> frozenset[bytes]:
        """Hashes of the subtrees large enough to count as shared code (worked out once: a shape is not changed)."""
        if self._big is None:
            self._big = frozenset(h for i, h in self.hashes.items() if self.sizes[i] >= MIN_NODES)
        return self._big


_STATEMENTS = (ast.mod, ast.stmt, ast.excepthandler, ast.match_case)  # the nodes that hold statements


def _statements(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes that are or hold statements, in ast.walk's order (no expression holds a statement)."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, _STATEMENTS))
        yield node


def _imported(tree: ast.AST) -> dict[str, str]:
    """Names the code binds by import, each to what it names (`import torch as T`: T is torch), never a learner's."""
    names: dict[str, str] = {}
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname: a.name for a in node.names if a.asname}
            names |= {a.name.split(".")[0]: a.name.split(".")[0] for a in node.names if not a.asname}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name: f"{node.module or ''}.{a.name}" for a in node.names}
    return names


def imported_names(code: str) -> dict[str, str]:
    """The names `code` binds by import, each to what it names ({} when it does not parse)."""
    try:
        return _imported(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}


def _kept(names: Set[str] | Mapping[str, str]) -> dict[str, str]:
    """Names nobody chooses -> how a shape writes them (a set: each as itself)."""
    return dict(names) if isinstance(names, Mapping) else {n: n for n in names}


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


_MISSING = object()
_NOT_CODE = frozenset(("annotation", "returns", "type_comment", "type_params", "decorator_list"))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _code_fields(cls: type) -> tuple[str, ...]:
    """The fields of a kind of node that may carry code, in order (each kind's read once)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(name for name in getattr(cls, "_fields", ()) if name not in _NOT_CODE)
    return found


def _carries_code(child: object) -> bool:
    return (isinstance(child, ast.AST) and not isinstance(child, _SKIPPED)
            and not (_is_docstring(child) or isinstance(child, ast.Pass)))  # fmt: skip


def _groups(node: ast.AST) -> list[tuple[bool, list[ast.AST]]]:
    """The children that carry code, per field (True: a block of statements or a call's keywords, whose order
    is not its shape).

    No docstrings, annotations, `pass` or operator tokens.
    """
    out = []
    for name in _code_fields(type(node)):
        value = getattr(node, name, _MISSING)
        if value is _MISSING:
            continue
        kids = [
            c for c in (value if isinstance(value, list) else [value]) if isinstance(c, ast.AST) and _carries_code(c)
        ]
        out.append((name == "keywords" or (bool(kids) and all(isinstance(k, ast.stmt) for k in kids)), kids))
    return out


def _children(node: ast.AST) -> Iterator[ast.AST]:
    """The node's children that are nodes (no expression contexts or operator tokens)."""
    for name in type(node)._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            yield from (child for child in value if isinstance(child, ast.AST) and not isinstance(child, _SKIPPED))
        elif isinstance(value, ast.AST) and not isinstance(value, _SKIPPED):
            yield value


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node (no expression contexts or operator tokens), in no particular order."""
    todo = [tree]
    while todo:
        node = todo.pop()
        todo.extend(_children(node))
        yield node


def _commutes(node: ast.AST) -> bool:
    """Whether the order of the node's operands is no part of its shape (a + b, a == b, a and b)."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _COMMUTATIVE)
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and isinstance(node.ops[0], _SYMMETRIC)
    return isinstance(node, ast.BoolOp)


def _fields(node: ast.AST) -> list[ast.AST]:
    """The children that carry code, in order."""
    return [child for _, kids in _groups(node) for child in kids]


class _Inline(ast.NodeTransformer):
    """Calls of one-line helpers (`def f(a, b): return <expr>`) replaced by their expression, arguments put in."""

    def __init__(self, helpers: dict[str, ast.FunctionDef]) -> None:
        self.helpers, self.depth = helpers, 0

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        fn = self.helpers.get(node.func.id) if isinstance(node.func, ast.Name) else None
        params = [a.arg for a in fn.args.args] if fn else []
        if not fn or node.keywords or len(node.args) != len(params) or self.depth > 20:
            return node
        body = fn.body[-1].value  # type: ignore[attr-defined]  # a Return: _inline_helpers picks only those
        values = dict(zip(params, node.args, strict=True))
        put = _Substitute(values).visit(copy.deepcopy(body))
        self.depth += 1
        try:
            return self.visit(put)
        finally:
            self.depth -= 1


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy.deepcopy(self.values[node.id]) if node.id in self.values else node


def _inline_helpers(tree: ast.Module) -> ast.Module:
    """Code moved into one-line helpers is read back where it is used (the helpers themselves then drop out)."""
    helpers = {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and not n.decorator_list and not n.args.vararg and not n.args.kwarg
        and not n.args.kwonlyargs and not n.args.defaults
        and [s for s in n.body if not _is_docstring(s)] == n.body[-1:] and isinstance(n.body[-1], ast.Return)
        and n.body[-1].value is not None
    }  # fmt: skip
    if not helpers:
        return tree
    used = {n.func.id for n in _walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name in helpers.keys() & used)]
    return _Inline({k: v for k, v in helpers.items() if k in used}).visit(tree)


class _DropDead:
    """Statements that cannot change a result: stores to names nothing reads, `if False:`, `assert True`,
    what follows a `return` or `raise` in its block, and functions defined inside a function and never used.

    Only the nodes that hold statements are visited (no expression holds one)."""

    def __init__(self, read: set[str], constants: Mapping[str, object]) -> None:
        self.read, self.constants = read, constants

    def visit(self, node: ast.AST, depth: int = 0) -> ast.AST:
        depth += isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for child in _children(node):
            if isinstance(child, _STATEMENTS):
                self.visit(child, depth)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and all(isinstance(s, ast.stmt) for s in block):
                ends = [i for i, s in enumerate(block) if isinstance(s, (ast.Return, ast.Raise))]
                reached = block[: ends[0] + 1] if ends else block
                kept = [s for s in reached if not self._dead(s, depth)]
                setattr(node, name, kept or block[:1] if name == "body" else kept)
        return node

    def _dead(self, stmt: ast.stmt, depth: int) -> bool:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return depth > 0 and stmt.name not in self.read  # a top-level one is the contract's or a helper
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            calls = [n for n in _walk(stmt.value) if isinstance(n, (ast.Call, ast.Await, ast.Yield))]
            pure = all(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in _KEPT_NAMES
                       for c in calls)  # fmt: skip  # a call of the learner's own may do something
            return pure and not any(t.id in self.read for t in stmt.targets)  # type: ignore[attr-defined]
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant):
            return not stmt.test.value and not stmt.orelse
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and stmt.test.id in self.constants:
            return not self.constants[stmt.test.id] and not stmt.orelse  # `DEBUG = False` ... `if DEBUG:`
        return isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)


def _drop_dead(tree: ast.Module) -> ast.Module:
    """The code without statements that do nothing (names read anywhere in the cell are kept)."""
    read: set[str] = set()
    stores: dict[str, int] = {}
    for n in _walk(tree):
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Store):
                read.add(n.id)
            if not isinstance(n.ctx, ast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, ast.Attribute):
            read.add(n.attr)
    constants = {  # module-level names bound once, to a constant
        s.targets[0].id: s.value.value
        for s in tree.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.Constant) and stores.get(s.targets[0].id) == 1
    }  # fmt: skip
    return _DropDead(read, constants).visit(tree)  # type: ignore[return-value]


_OPERATORS = (ast.operator, ast.boolop, ast.unaryop)


def _flipped(node: ast.AST) -> bool:
    """`a > b` (or `a >= b`): shaped as `b < a` (`b <= a`)."""
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIPPED


class _Shaper:
    """Walks one tree, giving each node an index, a hash and a size."""

    def __init__(self, code: str, kept: dict[str, str], starter: Set[bytes]) -> None:
        self.shape, self.kept, self.starter = Shape(), kept, starter
        self.own_keywords: set[int] = set()  # the keyword arguments of calls to the learner's own functions
        starts = [0]
        for line in code.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        self.starts = starts

    def _label(self, node: ast.AST) -> str:
        """The node's own part of its shape: its kind and the names nobody chooses."""
        kind = type(node).__name__
        if isinstance(node, ast.Name):
            return f"{kind}:{self.kept.get(node.id, PLACEHOLDER)}"
        if isinstance(node, ast.Attribute):
            mine = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            return f"{kind}:{PLACEHOLDER if mine else node.attr}"
        if isinstance(node, ast.Constant):
            return f"{kind}:{PLACEHOLDER if isinstance(node.value, str) else repr(node.value)}"
        if isinstance(node, ast.keyword):
            return f"{kind}:{PLACEHOLDER if id(node) in self.own_keywords else node.arg}"
        op = getattr(node, "op", None)
        ops = [type(op).__name__] if isinstance(op, _OPERATORS) else []
        if _flipped(node):
            return f"{kind}:{_FLIPPED[type(node.ops[0])].__name__}"  # type: ignore[attr-defined]
        return f"{kind}:{','.join(ops + [type(o).__name__ for o in getattr(node, 'ops', [])])}"

    def _span(self, node: ast.AST) -> tuple[int, int] | None:
        try:
            start = self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
            return start, self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        except (AttributeError, IndexError, TypeError):
            return None

    def _own(self, call: ast.Call) -> None:
        """A call to the learner's own function or method: its keywords' names are the learner's."""
        fn = call.func
        mine = isinstance(fn, ast.Name) and fn.id not in self.kept
        mine |= isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id in ("self", "cls")
        if mine:
            self.own_keywords |= {id(k) for k in call.keywords}

    def visit(self, node: ast.AST) -> int:
        digest = hashlib.blake2b(self._label(node).encode(), digest_size=12)
        if isinstance(node, ast.Call) and node.keywords:
            self._own(node)
        kids = []
        if _flipped(node):  # b < a: its operands the other way round
            groups = [(False, [node.comparators[0]]), (False, []), (False, [node.left])]  # type: ignore[attr-defined]
        elif _commutes(node):  # the operands in any order: one group, sorted
            groups = [(True, [child for _, group in _groups(node) for child in group])]
        else:
            groups = _groups(node)
        for block, group in groups:
            ids = [self.visit(child) for child in group]
            kids += ids
            hashes = [self.shape.hashes[k] for k in ids]
            for h in sorted(hashes) if block else hashes:  # statements, keywords in another order: the same
                digest.update(h)
            digest.update(b"|")
        i = len(self.shape.hashes)
        self.shape.hashes[i] = digest.digest()
        starter = self.shape.hashes[i] in self.starter  # the contract's code: counts for nobody
        self.shape.sizes[i] = 0 if starter else 1 + sum(self.shape.sizes[k] for k in kids)
        self.shape.children[i] = [] if starter else kids
        if (span := self._span(node)) is not None:
            self.shape.spans[i] = span
        return i


MAX_DEPTH = 100  # expression nesting kept; honest answers stay far below it (the passes below recurse)


def _prune_deep(tree: ast.Module) -> ast.Module:
    """Expressions nested deeper than MAX_DEPTH replaced by a constant, without recursion.

    The passes below recurse, so a cell holding one over-deep expression (a dead `q + q + ... + q` of
    a thousand terms) would otherwise raise RecursionError and leave the whole cell uncompared: a copy
    padded so would go unseen. Pruned, the expression is one node and the rest of the cell is judged."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth + 1 < MAX_DEPTH:
            stack += [(child, depth + 1) for child in _children(node)]
            continue
        for name in type(node)._fields:
            value = getattr(node, name, None)
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                if not isinstance(child, ast.AST) or isinstance(child, _SKIPPED):
                    continue
                if isinstance(child, ast.expr):
                    flat = ast.copy_location(ast.Constant(value="<deep>"), child)
                    if isinstance(value, list):
                        value[i] = flat
                    else:
                        setattr(node, name, flat)
                else:
                    stack.append((child, depth + 1))
    return tree


def shape(
    code: str, starter: Set[bytes] = frozenset(), imported: Set[str] | Mapping[str, str] = frozenset()
) -> Shape | None:
    """The shape of `code` (None when it does not parse); subtrees whose hash is in `starter` never count.

    `imported`: names bound elsewhere that nobody chooses (a mapping: to the module each names).
    """
    try:
        tree = _prune_deep(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    imports = _imported(tree)
    try:
        tree = _inline_helpers(_drop_dead(tree))
    except RecursionError:
        return None
    kept = {n: n for n in _KEPT_NAMES} | _kept(imported) | imports
    shaper = _Shaper(code, kept, set(starter))
    try:
        roots = [shaper.visit(stmt) for stmt in _fields(tree)]
    except RecursionError:
        return None
    out = shaper.shape
    out.roots = [r for r in roots if out.sizes[r]]
    out.counted = sum(out.sizes[r] for r in out.roots)
    out.imports = imports
    return out


def starter_hashes(
    code: str, imported: Set[str] | Mapping[str, str] = frozenset(), smallest: int = STARTER_NODES
) -> set[bytes]:
    """The subtrees of the starter code (`smallest` nodes or more) that an answer's code never counts."""
    s = shape(code, imported=imported)
    return {h for i, h in s.hashes.items() if s.sizes[i] >= smallest} if s else set()


def covered(a: Shape, other: Set[bytes]) -> tuple[int, list[tuple[int, int]]]:
    """Nodes of `a` inside a subtree of MIN_NODES or more whose shape `other` holds, and their spans."""
    nodes, spans, stack = 0, [], list(a.roots)
    while stack:
        i = stack.pop()
        if not a.sizes[i]:
            continue
        if a.sizes[i] >= MIN_NODES and a.hashes[i] in other:
            nodes += a.sizes[i]
            spans += [a.spans[i]] if i in a.spans else []
            continue
        stack += a.children[i]
    return nodes, sorted(spans)
