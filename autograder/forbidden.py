"""Forbidden built-ins, judged from the answer cells' source in the grader's process.

A notebook forbids some calls (``F.scaled_dot_product_attention``, ``nn.MultiheadAttention``,
...). Nothing the kernel reports decides this: the learner's source is parsed here, and
every use of a forbidden name is found, as is every way around a name check: PyTorch's
operator namespaces (``torch.ops``, ``torch._C``), attribute lookups by computed string,
``importlib``/``__import__``, frame and namespace inspection, ``exec``/``eval``/``compile``.
"""

from __future__ import annotations

import ast

BACKDOOR_ATTRS = {"ops": "torch.ops (PyTorch's operator namespace)", "_C": "torch._C (PyTorch's C bindings)",
                  "_getframe": "sys._getframe (frame inspection)", "__dict__": "__dict__ (namespace access)",
                  "__builtins__": "__builtins__", "__import__": "__import__", "modules": "sys.modules"}  # fmt: skip
BACKDOOR_CALLS = {
    "exec",
    "eval",
    "compile",
    "__import__",
    "globals",
    "vars",
    "locals",
    "getattr",
    "setattr",
    "get_ipython",
}
BACKDOOR_MODULES = {"importlib", "inspect", "ctypes", "builtins", "gc", "operator", "__main__"}


def _imports(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
    return []


def _finding(node: ast.AST, names: set[str]) -> str | None:  # noqa: C901 - one rule per branch
    """What is forbidden about this node, or None."""
    if isinstance(node, ast.Attribute):
        if node.attr in names:
            return f"uses the forbidden built-in {node.attr}"
        if node.attr in BACKDOOR_ATTRS:
            return f"uses {BACKDOOR_ATTRS[node.attr]}"
    for module in _imports(node):
        top = module.split(".")[0]
        if top in BACKDOOR_MODULES:
            return f"imports {module} (a way around the rule)"
        if module.split(".")[-1] in names:
            return f"imports the forbidden built-in {module.split('.')[-1]}"
        if module.split(".")[-1] in BACKDOOR_ATTRS and "." in module:
            return f"imports {module} (a way around the rule)"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BACKDOOR_CALLS:
        if node.func.id == "setattr":
            return None  # setting an attribute cannot fetch a forbidden built-in
        literal = node.args[1:2] and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
        if node.func.id in ("getattr", "setattr") and literal and node.args[1].value not in names:
            return None  # getattr(obj, "plain_name") is an ordinary attribute access
        return f"calls {node.func.id}() (a computed name or code could reach a forbidden built-in)"
    return None


def _python(source: str) -> str:
    """IPython syntax (magics, shell escapes) as the Python it runs, so that nothing hides behind it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _defined(tree: ast.Module) -> set[str]:
    """Top-level names a cell defines (functions, classes, assignments, imports)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(
                n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _in_scope(trees: dict[str, ast.Module], cells: list[str]) -> set[str]:
    """The cells named, and every answer cell defining a name they use (transitively)."""
    defines = {cell_id: _defined(tree) for cell_id, tree in trees.items()}
    scope, todo = set(), [c for c in cells if c in trees]
    while todo:
        cell_id = todo.pop()
        if cell_id in scope:
            continue
        scope.add(cell_id)
        used = {n.id for n in ast.walk(trees[cell_id]) if isinstance(n, ast.Name)}
        todo += [other for other, names in defines.items() if other not in scope and names & used]
    return scope


LIBRARIES = {"torch", "nn", "F", "np", "numpy", "math", "plt", "matplotlib", "workbook"}


def _outside_finding(node: ast.AST, names: set[str], called: set[int]) -> str | None:
    """A cell outside the scope may call a forbidden built-in directly, and nothing more."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return _finding(node, set())  # importing it is fine there (a scoped cell using that name is in scope)
    if isinstance(node, (ast.Attribute, ast.Name)) and getattr(node, "attr", getattr(node, "id", "")) in names:
        return None if id(node) in called else "passes a forbidden built-in around instead of calling it"
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, (ast.AugAssign, ast.AnnAssign))
        else []
    )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
        targets = [ast.Attribute(node.args[0], "_", ast.Store())]
    for target in targets:
        base = target
        while isinstance(base, ast.Attribute):
            base = base.value
        if base is not target and isinstance(base, ast.Name) and base.id in LIBRARIES:
            return f"assigns to an attribute of {base.id} (patches a library)"
    return _finding(node, names)


def scan(sources: dict[str, str], forbidden: list[str], cells: list[str] | None = None) -> list[str]:
    """Findings in the answer cells (grade_id -> source): 'cell <id>, line <n>: <what>'.

    cells: the answer cells (grade ids) that must not use the names, with every answer cell
    defining a name they use; elsewhere the names may be called directly (not aliased, not
    stored, no library patched). None: no answer cell may use them. Ways around a name check
    are found in every cell either way.
    """
    names = set(forbidden)
    findings, trees = [], {}
    for cell_id, source in sources.items():
        try:
            trees[cell_id] = ast.parse(_python(source))
        except SyntaxError:
            findings.append(f"answer cell {cell_id!r}: its source could not be parsed, so it could not be checked")
    scope = set(trees) if cells is None else _in_scope(trees, list(cells))
    for cell_id, tree in trees.items():
        inside = cell_id in scope
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            what = _finding(node, names) if inside else _outside_finding(node, names, called)
            if what:
                findings.append(f"answer cell {cell_id!r}, line {getattr(node, 'lineno', '?')}: {what}")
    return findings
