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
BACKDOOR_MODULES = {"importlib", "inspect", "ctypes", "builtins", "gc", "operator"}


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
        literal = node.args[1:2] and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
        if node.func.id in ("getattr", "setattr") and literal and node.args[1].value not in names:
            return None  # getattr(obj, "plain_name") is an ordinary attribute access
        return f"calls {node.func.id}() (a computed name or code could reach a forbidden built-in)"
    return None


def _python(source: str) -> str:
    """IPython syntax (magics, shell escapes) as the Python it runs, so that nothing hides behind it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def scan(sources: dict[str, str], forbidden: list[str]) -> list[str]:
    """Findings in the answer cells (grade_id -> source): 'cell <id>, line <n>: <what>'."""
    names = set(forbidden)
    findings = []
    for cell_id, source in sources.items():
        try:
            tree = ast.parse(_python(source))
        except SyntaxError:
            findings.append(f"answer cell {cell_id!r}: its source could not be parsed, so it could not be checked")
            continue
        for node in ast.walk(tree):
            what = _finding(node, names)
            if what:
                findings.append(f"answer cell {cell_id!r}, line {getattr(node, 'lineno', '?')}: {what}")
    return findings
