"""Disguised copies of answer code: renamed names, reordered code, comment changes, dead code, helpers.

Used by benchmarks/similarity.py and tests/test_similarity.py to measure what the similarity
report finds. Each transform parses the code and writes it back with ast.unparse (so the
original comments and layout are gone too); code that does not parse is returned as is.

- rename: every local and loop variable, every function the cell defines but the contract
  does not name (nested and `_private` ones) with its parameters and the keywords that name
  them at its calls, and a module's import alias (`import torch as T`).
- reorder: adjacent independent assignments swapped, the cell's definitions in another order,
  keyword arguments shuffled, operands of `+`, `*`, `==`, `!=` swapped and comparisons turned
  round (`a < b` as `b > a`).
- comments: the original comments and docstrings replaced by the copier's own, blank lines added.
- dead: statements that do nothing (unused locals, also ones computed from the inputs, an
  unused helper, `if False:` and `if DEBUG:` branches, a no-op assert, a line after `return`).
- helpers: expressions moved into new module-level helper functions.
"""

from __future__ import annotations

import ast
import builtins
import io
import random
import tokenize

_KEEP = set(dir(builtins)) | {"self", "cls", "torch", "nn", "F", "np", "math", "random", "workbook"}
_ALIASES = {"torch": "torch", "np": "numpy", "F": "torch.nn.functional", "nn": "torch.nn", "math": "math"}


def _assigned_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names a function binds by assignment, loops and comprehensions (not its parameters)."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names - _KEEP


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x} - _KEEP


class _Rename(ast.NodeTransformer):
    """Names and parameters by a mapping."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        if node.arg in self.mapping:
            node.arg = self.mapping[node.arg]
        return node


class _RenameFunctions(ast.NodeTransformer):
    """Helper functions and `self._helper` methods renamed, and the keywords that name their renamed parameters."""

    def __init__(self, functions: dict[str, str], parameters: dict[str, dict[str, str]]) -> None:
        self.functions, self.parameters = functions, parameters

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self.functions.get(node.name, node.name)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.functions.get(node.id, node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            node.attr = self.functions.get(node.attr, node.attr)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        fn = node.func
        name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
        for kw in node.keywords:
            kw.arg = self.parameters.get(name, {}).get(kw.arg, kw.arg) if kw.arg else None
        self.generic_visit(node)
        return node


def _renamed_functions(tree: ast.Module, rng: random.Random) -> dict[str, str]:
    """Functions and methods a copier can rename without breaking the contract: nested and `_private` ones."""
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    found = {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not n.name.startswith("__")
        and (n.name.startswith("_") or n.name not in top)
        and not (n.name in ("forward", "extra_repr") or n.name.startswith("test"))
    }
    return {name: f"{rng.choice(['do', 'calc', 'run', 'go'])}_{i}" for i, name in enumerate(sorted(found))}


def _rename_alias(tree: ast.Module, rng: random.Random) -> None:
    """The module the cell uses most under another alias, imported at the top of the cell."""
    used: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in _ALIASES:
            used[n.id] = used.get(n.id, 0) + 1
    bound = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    if not used or set(used) & bound:
        return
    old = max(sorted(used), key=used.__getitem__)
    new = f"{old.lower()}_{rng.randint(1, 9)}"
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
    module, _, member = _ALIASES[old].rpartition(".")
    imp = ast.ImportFrom(module, [ast.alias(member, new)], 0) if module else ast.Import([ast.alias(member, new)])
    tree.body.insert(0, imp)


def rename(code: str, rng: random.Random) -> str:
    """Every local of every function, the helpers the contract does not name with their parameters, and one
    module alias get new names (the contract's functions keep their names and parameters: tests call them)."""
    tree = ast.parse(code)
    words = ["tmp", "val", "res", "buf", "acc", "item", "thing", "data", "part", "piece", "arr", "z"]
    functions = _renamed_functions(tree, rng)
    parameters: dict[str, dict[str, str]] = {}
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]:
        helper = isinstance(fn, ast.Lambda) or fn.name in functions
        names = set() if isinstance(fn, ast.Lambda) else _assigned_locals(fn)
        names = names | _parameters(fn) if helper else names - _parameters(fn)  # a parameter is renamed everywhere
        names -= {"self", "cls"} | set(functions)
        mapping = {name: f"{rng.choice(words)}_{i}" for i, name in enumerate(sorted(names))}
        for part in [fn.args, fn.body] if isinstance(fn, ast.Lambda) else [fn.args if helper else None, *fn.body]:
            if part is not None:
                _Rename(mapping).visit(part)
        if not isinstance(fn, ast.Lambda) and fn.name in functions:
            parameters[fn.name] = {p: mapping[p] for p in _parameters(fn) if p in mapping}
    tree = _RenameFunctions(functions, parameters).visit(tree)
    _rename_alias(tree, rng)
    return ast.unparse(ast.fix_missing_locations(tree))


def _uses(node: ast.AST) -> tuple[set[str], set[str]]:
    reads, writes = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (writes if isinstance(n.ctx, ast.Store) else reads).add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            writes.add(ast.unparse(n))
    return reads, writes


def _independent(a: ast.stmt, b: ast.stmt) -> bool:
    if not all(isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)) for s in (a, b)):
        return False
    ra, wa = _uses(a)
    rb, wb = _uses(b)
    return not (wa & (rb | wb) or wb & ra) and isinstance(a, ast.Assign) and isinstance(b, ast.Assign)


def _swap_body(body: list[ast.stmt]) -> None:
    i = 0
    while i + 1 < len(body):
        if _independent(body[i], body[i + 1]):
            body[i], body[i + 1] = body[i + 1], body[i]
            i += 2
        else:
            i += 1
    for stmt in body:
        for child in ("body", "orelse"):
            if isinstance(getattr(stmt, child, None), list):
                _swap_body(getattr(stmt, child))


_TURNED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


def _plain(node: ast.expr) -> bool:
    """Not a literal string or sequence, for which `+` does not commute."""
    return not isinstance(node, (ast.List, ast.Tuple, ast.JoinedStr, ast.ListComp)) and not (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    )


class _Operands(ast.NodeTransformer):
    """Keyword arguments shuffled, operands of + and * swapped, comparisons turned round (each at random)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if all(k.arg for k in node.keywords):
            self.rng.shuffle(node.keywords)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Mult)) and _plain(node.left) and _plain(node.right):
            if self.rng.random() < 0.6:
                node.left, node.right = node.right, node.left
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _TURNED and self.rng.random() < 0.6:
            return ast.Compare(node.comparators[0], [_TURNED[type(node.ops[0])]()], [node.left])
        return node


def reorder(code: str, rng: random.Random) -> str:
    """Independent assignments swapped, the cell's definitions in another order, operands and keywords too."""
    tree = ast.parse(code)
    _swap_body(tree.body)
    tree = _Operands(rng).visit(tree)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    if len(defs) > 1 and all(
        isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) for n in tree.body
    ):
        imports = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        rng.shuffle(defs)
        tree.body = imports + defs
    return ast.unparse(ast.fix_missing_locations(tree))


def _without_comments(code: str) -> str:
    """The code with its comments taken out and its docstrings reworded."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type != tokenize.COMMENT]
        code = tokenize.untokenize(tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code
    tree = ast.parse(code)
    docs = [n.body[0].value for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Module))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(getattr(n.body[0], "value", None),
            ast.Constant) and isinstance(n.body[0].value.value, str)]  # fmt: skip
    lines = code.split("\n")
    for doc in sorted(docs, key=lambda d: -d.lineno):  # bottom up: the line numbers above stay right
        first, last = doc.lineno - 1, doc.end_lineno - 1  # type: ignore[operator]
        start, end = lines[first][: doc.col_offset], lines[last][doc.end_col_offset :]  # type: ignore[index]
        lines[first : last + 1] = [f'{start}"""My implementation."""{end}']
    return "\n".join(lines)


def comment(code: str, rng: random.Random) -> str:
    """The original comments and docstrings replaced by the copier's own, and blank lines added."""
    notes = ["# compute the result", "# my approach", "# step", "# TODO tidy", "# shapes checked here", "# helper"]
    out = []
    for line in _without_comments(code).split("\n"):
        indent = line[: len(line) - len(line.lstrip())]
        if line.strip() and rng.random() < 0.4:
            out.append(f"{indent}{rng.choice(notes)} {rng.randint(1, 99)}")
        out.append(line)
        if rng.random() < 0.15:
            out.append("")
    return "\n".join(out)


class _Extract(ast.NodeTransformer):
    """The value of some assignments in functions moved into helper functions of the module."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.helpers, self.params = rng, [], set()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        outer = self.params
        self.params = {a.arg for a in node.args.args + node.args.kwonlyargs} | _assigned_locals(node) | outer
        self.generic_visit(node)
        self.params = outer
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if not self.params or not isinstance(node.value, (ast.Call, ast.BinOp)) or self.rng.random() < 0.5:
            return node
        free = sorted({n.id for n in ast.walk(node.value) if isinstance(n, ast.Name) and n.id in self.params})
        name = f"_step_{len(self.helpers)}"
        args = ast.arguments(
            posonlyargs=[], args=[ast.arg(a) for a in free], kwonlyargs=[], kw_defaults=[], defaults=[]
        )
        self.helpers.append(ast.FunctionDef(name, args, [ast.Return(node.value)], [], None, type_params=[]))
        node.value = ast.Call(ast.Name(name, ast.Load()), [ast.Name(a, ast.Load()) for a in free], [])
        return node


def extract_helpers(code: str, rng: random.Random) -> str:
    """Some expressions of the functions moved into new module-level helper functions."""
    tree = ast.parse(code)
    extract = _Extract(rng)
    tree = extract.visit(tree)
    tree.body = extract.helpers + tree.body
    return ast.unparse(ast.fix_missing_locations(tree))


def _dead_statements(rng: random.Random, params: list[str]) -> list[ast.stmt]:
    """Statements that change nothing: unused locals, some computed from the inputs, dead branches, a no-op check."""
    choices = [
        "_unused = None",
        f"_scratch_{rng.randint(0, 99)} = [0] * {rng.randint(2, 9)}",
        "if False:\n    print('debug')",
        "assert True, 'sanity'",
        f"_count = len(range({rng.randint(1, 5)}))",
        "if DEBUG:\n    print('checking inputs')",
        "def _unused_helper(a, b):\n    tmp = a * b\n    return tmp + 1",
    ]
    if params:
        p = rng.choice(params)
        choices += [f"_debug_{p} = {p}", f"_seen = id({p})", f"_kind = type({p}).__name__"]
    return ast.parse(rng.choice(choices)).body


def dead_code(code: str, rng: random.Random) -> str:
    """Statements that do nothing put into every function body, after its return and between the cell's definitions."""
    tree = ast.parse(code)
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        params = sorted(_parameters(fn) - {"self", "cls"})
        at = rng.randint(1 if ast.get_docstring(fn) else 0, max(len(fn.body) - 1, 0))
        fn.body[at:at] = _dead_statements(rng, params)
        if isinstance(fn.body[-1], ast.Return) and rng.random() < 0.5:
            fn.body.append(ast.parse("print('unreachable')").body[0])
    tree.body.insert(0, ast.parse("DEBUG = False").body[0])
    tree.body.append(ast.parse(f"_VERSION = {rng.randint(1, 9)}").body[0])
    return ast.unparse(ast.fix_missing_locations(tree))


TRANSFORMS = {"rename": rename, "reorder": reorder, "comments": comment, "helpers": extract_helpers, "dead": dead_code}
VARIANTS = [
    ("rename",),
    ("reorder",),
    ("comments",),
    ("helpers",),
    ("rename", "reorder"),
    ("rename", "comments"),
    ("rename", "helpers"),
    ("reorder", "helpers", "comments"),
    ("rename", "reorder", "comments"),
    ("rename", "reorder", "helpers", "comments"),
    ("dead",),
    ("rename", "dead", "comments"),
    ("rename", "reorder", "dead", "comments"),
    ("rename", "reorder", "helpers", "dead", "comments"),
]
"""Fourteen disguises: each transform alone, then combined (comments last: ast.unparse would drop them)."""


def disguise(code: str, steps: tuple[str, ...], seed: int) -> str:
    """`code` put through the named transforms in order (code that does not parse is returned unchanged)."""
    rng = random.Random(seed)
    for step in steps:
        try:
            code = TRANSFORMS[step](code, rng)
        except SyntaxError:
            return code
    return code
