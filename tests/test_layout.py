"""The package's layout: folders name its stages, and imports only run down the layers."""

from __future__ import annotations

import ast
from pathlib import Path

from autograder import paths

# Highest first: a unit (a folder, or a module at the package's top) imports only units below it.
LAYERS = [
    {"__main__"},
    {"commands", "scale"},  # argv -> call; beyond one machine (Gradescope, merge)
    {"run"},  # one batch over one results folder
    {"checks"},  # the trusted harness, in the grader's process
    {"kernel", "gradebook"},  # one learner kernel; nbgrader
    {"results_folder"},
    {"submissions", "material"},
    {"shipped", "paths", "results", "workbook", "__init__"},  # shipped/ runs in other processes
]
TOP_MODULES = {"__init__", "__main__", "paths", "results", "workbook"}


def _unit(package: Path, path: Path) -> str:
    parts = path.relative_to(package).parts
    return parts[0] if len(parts) > 1 else path.stem


def _imported_units(tree: ast.AST, name: str) -> set[str]:
    """The units of package `name` one module imports (top-level or inside functions)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == name and not node.level:
            parts = node.module.split(".")
            found |= {a.name for a in node.names} if len(parts) == 1 else {parts[1]}
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith(name + ".")}
    return found - {"__version__"}


def layer_violations(package: Path, layers: list[set[str]]) -> list[str]:
    """Each import of a unit at the same or a higher layer (or of no layer), as 'file: a -> b'."""
    rank = {unit: i for i, group in enumerate(layers) for unit in group}
    out = []
    for path in sorted(package.rglob("*.py")):
        unit = _unit(package, path)
        for other in sorted(_imported_units(ast.parse(path.read_text()), package.name) - {unit}):
            if unit not in rank or other not in rank or rank[other] <= rank[unit]:
                out.append(f"{path.relative_to(package)}: {unit} -> {other}")
    return out


def test_imports_run_down_the_layers_only():
    assert layer_violations(paths.ROOT / "autograder", LAYERS) == []


def test_every_module_sits_in_a_stage_folder_but_the_foundations():
    package = paths.ROOT / "autograder"
    flat = {p.stem for p in package.glob("*.py")}
    assert flat == TOP_MODULES
    folders = {p.parent.name for p in package.glob("*/__init__.py")}
    assert folders == set().union(*LAYERS) - TOP_MODULES
    for folder in folders:  # each folder says what its stage is
        assert ast.get_docstring(ast.parse((package / folder / "__init__.py").read_text()))


def test_a_planted_upward_import_is_found(tmp_path):
    """The check can fail: kernel/ importing run/ (an arrow up) and a folder of no layer are both named."""
    package = tmp_path / "autograder"
    for folder in ("kernel", "run", "stray"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text('"""x"""\n')
    (package / "run" / "grade.py").write_text("from autograder.kernel import launchers\n")
    (package / "kernel" / "launchers.py").write_text("def f():\n    from autograder.run import grade\n")
    (package / "stray" / "x.py").write_text("from autograder import paths\n")
    assert layer_violations(package, LAYERS) == [
        "kernel/launchers.py: kernel -> run",
        "stray/x.py: stray -> paths",
    ]


def _map_rows() -> dict[str, str]:
    """CONTRIBUTING.md's architecture table: its first cell (a folder, a module or 'top level') -> the row."""
    rows = {}
    for line in (paths.ROOT / "CONTRIBUTING.md").read_text().splitlines():
        if line.startswith("| ") and not line.startswith("| folder") and not line.startswith("|---"):
            rows[line.split("|")[1].strip().strip("`")] = line
    return rows


def test_every_module_is_named_in_the_contributors_map():
    """Issue 50: CONTRIBUTING's map names every module of the package in its folder's row (it cannot drift)."""
    rows, package = _map_rows(), paths.ROOT / "autograder"
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        parts = path.relative_to(package).parts
        row = rows.get(f"{parts[0]}/", "") if len(parts) > 1 else rows.get(path.name, rows.get("top level", ""))
        if f"`{path.stem}`" not in row and f"`{path.name}`" not in row:
            missing.append(str(path.relative_to(package)))
    assert not missing, f"CONTRIBUTING.md's architecture map does not name {missing}"


def _module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports (top-level or inside functions).

    `from a.b import c` is an import of module `a.b.c` where that is a module, else of `a.b`;
    a relative import (shipped/'s `from . import codec`) is resolved against the module's own package.
    """
    modules = {_module_name(package, p): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
                source = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    found.add(full if full in modules else source)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[name] = {m for m in found if m in modules} - {name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's cycles, as its strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_module_imports_itself_through_others():
    """Issue 50: the package's import graph (every import, functions' bodies included) has no cycle."""
    assert import_cycles(import_graph(paths.ROOT / "autograder")) == []


def test_a_planted_import_cycle_is_found(tmp_path):
    """The check can fail: a cycle through a function's import and a relative import is named; a chain is not."""
    package = tmp_path / "autograder"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "a.py").write_text("from autograder.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from . import c\n")
    (package / "sub" / "c.py").write_text("import autograder.sub.a\n")
    (package / "top.py").write_text("from autograder.sub.a import x\nfrom autograder import sub\n")
    graph = import_graph(package)
    assert graph["autograder.top"] == {"autograder.sub.a", "autograder.sub"}
    assert graph["autograder.sub.b"] == {"autograder.sub.c"}
    assert import_cycles(graph) == [["autograder.sub.a", "autograder.sub.b", "autograder.sub.c"]]
