"""Disguised copies of answer code: renamed locals, reordered statements, new comments, extracted helpers.

Used by benchmarks/similarity.py and tests/test_similarity.py to measure what the similarity
report finds. Each transform parses the code and writes it back with ast.unparse (so the
original comments and layout are gone too); code that does not parse is returned as is.
"""

from __future__ import annotations

import ast
import builtins
import random

_KEEP = set(dir(builtins)) | {"self", "cls", "torch", "nn", "F", "np", "math", "random", "workbook"}


def _assigned_locals(fn: ast.FunctionDef) -> set[str]:
    """Names a function binds by assignment, loops and comprehensions (not its parameters)."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names - _KEEP


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def rename(code: str, rng: random.Random) -> str:
    """Every local variable of every function gets a new name."""
    tree = ast.parse(code)
    words = ["tmp", "val", "res", "buf", "acc", "item", "thing", "data", "part", "piece", "arr", "z"]
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        mapping = {name: f"{rng.choice(words)}_{i}" for i, name in enumerate(sorted(_assigned_locals(fn)))}
        for stmt in fn.body:
            _Rename(mapping).visit(stmt)
    return ast.unparse(tree)


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


def reorder(code: str, rng: random.Random) -> str:
    """Adjacent independent assignments swapped, and the cell's top-level definitions in another order."""
    tree = ast.parse(code)
    _swap_body(tree.body)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    if len(defs) > 1 and all(
        isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) for n in tree.body
    ):
        imports = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        rng.shuffle(defs)
        tree.body = imports + defs
    return ast.unparse(tree)


def comment(code: str, rng: random.Random) -> str:
    """Comments and blank lines of the copier's own between the lines."""
    notes = ["# compute the result", "# my approach", "# step", "# TODO tidy", "# shapes checked here", "# helper"]
    out = []
    for line in code.split("\n"):
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


def _dead_statements(rng: random.Random) -> list[ast.stmt]:
    """Statements that change nothing: unused locals, an `if False:` branch, a no-op check."""
    choices = [
        "_unused = None",
        f"_scratch_{rng.randint(0, 99)} = [0] * {rng.randint(2, 9)}",
        "if False:\n    print('debug')",
        "assert True, 'sanity'",
        f"_count = len(range({rng.randint(1, 5)}))",
    ]
    return ast.parse(rng.choice(choices)).body


def dead_code(code: str, rng: random.Random) -> str:
    """Statements that do nothing put into every function body and between the cell's definitions."""
    tree = ast.parse(code)
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        at = rng.randint(1 if ast.get_docstring(fn) else 0, max(len(fn.body) - 1, 0))
        fn.body[at:at] = _dead_statements(rng)
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
